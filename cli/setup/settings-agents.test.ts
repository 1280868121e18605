import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GEMINI } from './gemini.js';
import { parseConfig } from './jsonc-text.js';
import { QWEN } from './qwen.js';
import type { AgentFile, AgentSetup, SetupContext } from './types.js';

const ctx: SetupContext = {
  home: '/home/u',
  workspace: '/ws',
  reach: { kind: 'serve', command: 'mcpctl', args: ['serve'] },
  realpath: (f) => f,
};

function files(agent: AgentSetup, entries: Record<string, string>): Map<string, AgentFile> {
  return new Map(
    agent.files(ctx).map((p): [string, AgentFile] => {
      const text = entries[p];
      return [
        p,
        text === undefined
          ? { kind: 'absent', path: p }
          : { kind: 'text', path: p, text, mode: 0o644 },
      ];
    }),
  );
}

function value(text: string): Record<string, unknown> {
  const p = parseConfig('x', text);
  assert.ok(p.ok);
  return p.value as Record<string, unknown>;
}

const settings = `{
  // my servers
  "mcpServers": {
    "mem": { "command": "node", "args": ["$HOME/m.js"], "env": { "K": "\${SECRET}" } },
    "Off": { "command": "off" },
    "gone": { "command": "g" }
  },
  "mcp": { "excluded": ["off"] }
}
`;

describe('setup gemini: the plan', () => {
  const user = '/home/u/.gemini/settings.json';
  const enablement = '/home/u/.gemini/mcp-server-enablement.json';
  it('moves what Gemini starts, $VAR as ${VAR}; keeps excluded (any case) and disabled ones', () => {
    const plan = GEMINI.plan(
      files(GEMINI, { [user]: settings, [enablement]: '{ "gone": { "enabled": false } }' }),
      ctx,
    );
    assert.deepEqual(plan.refusals, []);
    assert.deepEqual(
      plan.moves.map((m) => m.name),
      ['mem'],
    );
    assert.deepEqual(plan.moves[0].entry, {
      command: 'node',
      args: ['${HOME}/m.js'],
      env: { K: '${SECRET}' },
    });
    const text = plan.changes[0].text;
    assert.match(text, /\/\/ my servers/);
    assert.deepEqual(Object.keys(value(text).mcpServers as object), ['Off', 'gone', 'mcpctl']);
    assert.ok(plan.notes.some((n) => n.includes('"Off"') && n.includes('excluded')));
    assert.ok(plan.notes.some((n) => n.includes('"gone"') && n.includes('disabled')));
  });

  it('adds mcpctl to mcp.allowed when there is one; notes the repository’s servers', () => {
    const plan = GEMINI.plan(
      files(GEMINI, {
        [user]: '{ "mcpServers": { "a": { "command": "a" } }, "mcp": { "allowed": ["a"] } }',
        '/ws/.gemini/settings.json': '{ "mcpServers": { "repo": { "command": "r" } } }',
      }),
      ctx,
    );
    assert.deepEqual((value(plan.changes[0].text).mcp as { allowed: string[] }).allowed, [
      'a',
      'mcpctl',
    ]);
    assert.ok(plan.notes.some((n) => n.includes('"repo"') && n.includes('keeps starting')));
  });

  it('refuses a variable it cannot carry over, naming the entry', () => {
    for (const entry of ['{ "command": "c", "cwd": "$HOME/x" }', '{ "command": "a${B:-c}" }']) {
      const plan = GEMINI.plan(
        files(GEMINI, { [user]: `{ "mcpServers": { "v": ${entry} } }` }),
        ctx,
      );
      assert.equal(plan.changes.length, 0);
      assert.match(plan.refusals.join(), /mcpServers\."v"/);
    }
  });
});

describe('setup qwen: the plan', () => {
  const user = '/home/u/.qwen/settings.json';
  it('moves user servers, keeps an excluded one (exact name, as Qwen and mcpctl compare), adds nothing to mcp.excluded', () => {
    const plan = QWEN.plan(
      files(QWEN, {
        [user]: settings.replace('"excluded": ["off"]', '"excluded": ["Off"]'),
        '/ws/.qwen/settings.json': '{ "mcpServers": { "wsrv": { "command": "w" } } }',
      }),
      ctx,
    );
    assert.deepEqual(plan.refusals, []);
    assert.deepEqual(
      plan.moves.map((m) => m.name),
      ['mem', 'gone'],
    );
    const after = value(plan.changes[0].text);
    assert.deepEqual(after.mcp, { excluded: ['Off'] });
    assert.deepEqual(Object.keys(after.mcpServers as object), ['Off', 'mcpctl']);
    // Qwen never re-lists its tools: serve with the meta tools.
    assert.deepEqual((after.mcpServers as Record<string, unknown>).mcpctl, {
      command: 'mcpctl',
      args: ['serve', '--meta-tools'],
    });
    assert.ok(plan.notes.some((n) => n.includes('"wsrv"') && n.includes('AND')));
  });

  it('refuses when mcp.excluded names mcpctl', () => {
    const plan = QWEN.plan(files(QWEN, { [user]: '{ "mcp": { "excluded": ["mcpctl"] } }' }), ctx);
    assert.equal(plan.changes.length, 0);
    assert.match(plan.refusals.join(), /mcp\.excluded names "mcpctl"/);
  });
});
