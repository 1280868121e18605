import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLAUDE } from './claude.js';
import { parseConfig } from './jsonc-text.js';
import type { AgentFile, SetupContext } from './types.js';

const HOME = '/home/u';
const WS = '/home/someone/ws';
const ctx: SetupContext = {
  home: HOME,
  workspace: WS,
  reach: { kind: 'serve', command: 'mcpctl', args: ['serve'] },
  realpath: (folder) => (folder === WS || folder === '/link/ws' ? WS : undefined),
};
const USER = `${HOME}/.claude.json`;
const PROJECT = `${WS}/.mcp.json`;
const LOCAL = `${WS}/.claude/settings.local.json`;

function files(entries: Record<string, string>): Map<string, AgentFile> {
  const m = new Map<string, AgentFile>();
  for (const p of CLAUDE.files(ctx)) {
    const text = entries[p];
    m.set(
      p,
      text === undefined
        ? { kind: 'absent', path: p }
        : { kind: 'text', path: p, text, mode: 0o600 },
    );
  }
  return m;
}

function json(text: string): Record<string, unknown> {
  const parsed = parseConfig('x', text);
  assert.ok(parsed.ok);
  return parsed.value as Record<string, unknown>;
}

const userText = `{
  "numStartups": 3,
  "mcpServers": {
    "mem": { "command": "node", "args": ["m.js"], "env": { "KEY": "sk-123456" } },
    "remote": { "type": "http", "url": "https://h/mcp?token=abcdef", "headers": { "Authorization": "Bearer \${TOKEN}" } }
  },
  "projects": {
    "/link/ws": { "allowedTools": [], "mcpServers": { "loc": { "command": "node", "args": ["l.js"] } } },
    "/gone": { "mcpServers": { "old": { "command": "node" } } }
  }
}
`;

describe('setup claude: the plan', () => {
  it('moves user and local servers, keeps a gone folder’s, adds one entry, skips .mcp.json’s in local settings', () => {
    const plan = CLAUDE.plan(
      files({ [USER]: userText, [PROJECT]: '{ "mcpServers": { "proj": { "command": "p" } } }' }),
      ctx,
    );
    assert.deepEqual(plan.refusals, []);
    assert.deepEqual(
      plan.moves.map((m) => [m.name, m.to, m.workspace]),
      [
        ['mem', 'user', undefined],
        ['remote', 'user', undefined],
        ['loc', 'workspace', WS],
      ],
    );
    const user = json(plan.changes.find((c) => c.path === USER)!.text);
    assert.deepEqual(Object.keys(user.mcpServers as object), ['mcpctl']);
    assert.deepEqual((user.mcpServers as Record<string, unknown>).mcpctl, {
      type: 'stdio',
      command: 'mcpctl',
      args: ['serve'],
    });
    assert.equal(user.numStartups, 3);
    const projects = user.projects as Record<string, { mcpServers: object }>;
    assert.deepEqual(projects['/link/ws'].mcpServers, {});
    assert.deepEqual(Object.keys(projects['/gone'].mcpServers), ['old']);
    assert.ok(plan.notes.some((n) => n.includes('"old"') && n.includes('does not exist')));
    const local = json(plan.changes.find((c) => c.path === LOCAL)!.text);
    assert.deepEqual(local.disabledMcpjsonServers, ['proj']);
    // The literal secrets are listed for hiding; a reference alone is not a secret.
    const secrets = plan.secrets.map((s) => s.value);
    assert.ok(secrets.includes('sk-123456'));
    assert.ok(secrets.includes('https://h/mcp?token=abcdef'));
    assert.ok(!secrets.includes('Bearer ${TOKEN}'));
  });

  it('keeps comments and an existing disabledMcpjsonServers list, appending only what is missing', () => {
    const local = `{
  // mine
  "disabledMcpjsonServers": ["other", "proj"], // kept
  "permissions": {}
}
`;
    const plan = CLAUDE.plan(
      files({
        [PROJECT]: '{ "mcpServers": { "proj": { "command": "p" }, "two": { "command": "t" } } }',
        [LOCAL]: local,
      }),
      ctx,
    );
    const text = plan.changes.find((c) => c.path === LOCAL)!.text;
    assert.match(text, /\/\/ mine/);
    assert.match(text, /\/\/ kept/);
    assert.deepEqual(json(text).disabledMcpjsonServers, ['other', 'proj', 'two']);
  });

  it('plans nothing the second time (already set up)', () => {
    const first = CLAUDE.plan(
      files({ [USER]: userText, [PROJECT]: '{ "mcpServers": { "p": { "command": "p" } } }' }),
      ctx,
    );
    const again = CLAUDE.plan(
      files(Object.fromEntries(first.changes.map((c) => [c.path, c.text]))),
      ctx,
    );
    // The gone folder's server stays, noted; nothing else to change.
    assert.deepEqual(
      again.changes.map((c) => c.path),
      [],
    );
    assert.deepEqual(again.moves, []);
  });

  it('refuses, and plans no change, for a file it does not understand', () => {
    for (const [text, words] of [
      ['{ "mcpServers": [] }', /mcpServers is not an object/],
      ['{ "mcpServers": { "x": { "command": 5 } } }', /mcpServers\."x"/],
      [
        '{ "mcpServers": { "x": { "command": "c", "alwaysAllow": [] } } }',
        /"x"\.alwaysAllow: a field mcpctl does not use/,
      ],
      ['{ "mcpServers": ', /not valid JSON/],
      ['[1]', /not a JSON object/],
      ['{ "mcpServers": { "mcpctl": { "command": "other" } } }', /already holds another server/],
    ] as const) {
      const plan = CLAUDE.plan(files({ [USER]: text }), ctx);
      assert.equal(plan.changes.length, 0, text);
      assert.equal(plan.moves.length, 0, text);
      assert.match(plan.refusals.join('\n'), words);
      assert.ok(
        plan.refusals.every((r) => r.startsWith(USER)),
        plan.refusals.join('\n'),
      );
    }
    const fifo = new Map(files({}));
    fifo.set(LOCAL, { kind: 'refused', path: LOCAL, problem: 'is not a regular file' });
    const plan = CLAUDE.plan(
      new Map([
        ...fifo,
        [
          PROJECT,
          {
            kind: 'text',
            path: PROJECT,
            text: '{"mcpServers":{"p":{"command":"p"}}}',
            mode: 0o644,
          },
        ],
      ]),
      ctx,
    );
    assert.equal(plan.changes.length, 0);
    assert.match(plan.refusals.join('\n'), /settings\.local\.json: is not a regular file/);
  });

  it('writes the HTTP endpoint with the token header for --http', () => {
    const plan = CLAUDE.plan(files({}), {
      ...ctx,
      reach: { kind: 'http', url: 'http://127.0.0.1:7000/mcp', token: 'tok' },
    });
    const user = json(plan.changes[0].text);
    assert.deepEqual((user.mcpServers as Record<string, unknown>).mcpctl, {
      type: 'http',
      url: 'http://127.0.0.1:7000/mcp',
      headers: { Authorization: 'Bearer tok' },
    });
  });
});
