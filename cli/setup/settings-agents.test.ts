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

  it('adds mcpctl to mcp.allowed when there is one', () => {
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
    // "repo" is not in mcp.allowed: Gemini does not start it, so no switch is written for it.
    assert.deepEqual(
      plan.changes.map((c) => c.path),
      [user],
    );
    assert.ok(plan.notes.some((n) => n.includes('"repo"') && n.includes('mcpctl approve')));
  });

  const project = '/ws/.gemini/settings.json';
  it("switches the repository's servers off for Gemini (its global switch, lower-cased name), never editing that file", () => {
    const repo = `{
  // the repository's
  "mcp": { "excluded": [] },
  "mcpServers": {
    " Memory ": { "command": "node", "env": { "TOKEN": "s3cr3t-value" } },
    "Off": { "command": "off" },
    "done": { "command": "d" }
  }
}`;
    const plan = GEMINI.plan(
      files(GEMINI, {
        [user]: settings,
        [project]: repo,
        [enablement]:
          '{\n  // mine\n  "done": { "enabled": false },\n  "memory": { "enabled": true, "x": 1 }\n}',
      }),
      ctx,
    );
    assert.deepEqual(plan.refusals, []);
    assert.ok(!plan.changes.some((c) => c.path === project), "the repository's file is not edited");
    const switched = plan.changes.find((c) => c.path === enablement)?.text ?? '';
    assert.match(switched, /\/\/ mine/);
    assert.deepEqual(value(switched), {
      done: { enabled: false },
      memory: { enabled: false, x: 1 },
    });
    const note = plan.notes.find((n) => n.startsWith(enablement)) ?? '';
    assert.match(note, /" Memory "/);
    assert.match(note, /global \(by name, in every project/);
    assert.ok(plan.notes.some((n) => n.includes('"Off"') && n.includes('excluded')));
    assert.ok(!plan.notes.join().includes('s3cr3t-value'));

    // Absent enablement file: made. Second run (switch in place): nothing to write.
    const first = GEMINI.plan(files(GEMINI, { [project]: repo }), ctx);
    const made = first.changes.find((c) => c.path === enablement)?.text ?? '';
    assert.deepEqual(value(made), {
      memory: { enabled: false },
      off: { enabled: false },
      done: { enabled: false },
    });
    const userAfter = first.changes.find((c) => c.path === user)?.text;
    const again = GEMINI.plan(
      files(GEMINI, { [project]: repo, [enablement]: made, [user]: userAfter ?? '' }),
      ctx,
    );
    assert.deepEqual(again.changes, []);
  });

  it("refuses a repository's file it cannot read, or a server of it named mcpctl, naming the file", () => {
    const cases: [AgentFile, RegExp][] = [
      [
        { kind: 'text', path: project, text: '{ "mcpServers": { "a": { },, }', mode: 0o644 },
        /settings\.json:1:\d+: not valid JSON/,
      ],
      [{ kind: 'refused', path: project, problem: 'not a regular file (a FIFO)' }, /a FIFO/],
      [
        { kind: 'text', path: project, text: '{ "mcpServers": [] }', mode: 0o644 },
        /mcpServers is not an object/,
      ],
      // What mcpctl would refuse to read: switched off for Gemini, it would be started by no one.
      [
        {
          kind: 'text',
          path: project,
          text: JSON.stringify({
            mcpServers: Object.fromEntries(
              Array.from({ length: 50_000 }, (_, i) => [`s${i}`, 'not even an entry']),
            ),
          }),
          mode: 0o644,
        },
        /50000 servers, more than the 1000/,
      ],
      [
        {
          kind: 'text',
          path: project,
          text: '{ "mcpServers": { "a\\u001bb": { "command": "x" } } }',
          mode: 0o644,
        },
        /control character U\+001B.*mcpctl would not serve/,
      ],
      [
        {
          kind: 'text',
          path: project,
          text: '{ "mcpServers": { "a": { "command": 3 } } }',
          mode: 0o644,
        },
        /mcpServers\.a\.command.*mcpctl would not serve/,
      ],
      [
        {
          kind: 'text',
          path: project,
          text: '{ "mcpServers": { "MCPCTL": { "command": "x" } } }',
          mode: 0o644,
        },
        /"MCPCTL" takes mcpctl's own name/,
      ],
    ];
    for (const [file, problem] of cases) {
      const all = files(GEMINI, { [user]: settings });
      all.set(project, file);
      const plan = GEMINI.plan(all, ctx);
      assert.deepEqual(plan.changes, []);
      assert.match(plan.refusals.join('\n'), problem);
      assert.ok(plan.refusals.join().includes(project));
      assert.ok(!plan.refusals.join().includes('\u001b'), 'no raw control character printed');
    }
  });

  it('a workspace that is the home has no project file to switch off', () => {
    const home = { ...ctx, workspace: '/home/u' };
    const plan = GEMINI.plan(
      new Map<string, AgentFile>([
        [
          user,
          {
            kind: 'text',
            path: user,
            text: '{ "mcpServers": { "a": { "command": "a" } } }',
            mode: 0o644,
          },
        ],
        [enablement, { kind: 'absent', path: enablement }],
      ]),
      home,
    );
    assert.deepEqual(plan.refusals, []);
    assert.deepEqual(
      plan.changes.map((c) => c.path),
      [user],
    );
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
  it('moves user servers, keeps an excluded one (exact name, as Qwen and mcpctl compare), excludes no user server', () => {
    const plan = QWEN.plan(
      files(QWEN, {
        [user]: settings.replace('"excluded": ["off"]', '"excluded": ["Off"]'),
        '/ws/.qwen/settings.json': '{ "mcpServers": { "wsrv": { "command": "w" } } }',
      }),
      ctx,
    );
    assert.deepEqual(plan.refusals, []);
    assert.deepEqual(
      plan.moves.map((m) => [m.name, m.to]),
      [
        ['mem', 'user'],
        ['gone', 'user'],
        ['wsrv', 'qwenOnlyExcluded'],
      ],
    );
    const after = value(plan.changes[0].text);
    // The user's own exclusion stays; the repository's server gets Qwen's switch.
    assert.deepEqual(after.mcp, { excluded: ['Off', 'wsrv'] });
    assert.deepEqual(Object.keys(after.mcpServers as object), ['Off', 'mcpctl']);
    // Qwen never re-lists its tools: serve with the meta tools.
    assert.deepEqual((after.mcpServers as Record<string, unknown>).mcpctl, {
      command: 'mcpctl',
      args: ['serve', '--meta-tools'],
    });
  });

  it("gives a repository's servers Qwen's own switch, recorded as Qwen's only; a second run adds nothing", () => {
    const wsFile = '/ws/.qwen/settings.json';
    const wsText =
      '{ "mcpServers": { "wsrv": { "command": "w" }, "wsoff": { "command": "o" }, "mine-off": { "command": "m" } }, "mcp": { "excluded": ["wsoff"] } }';
    const userText = '{\n  // mine\n  "mcp": { "excluded": ["mine-*"] }\n}\n';
    const plan = QWEN.plan(files(QWEN, { [user]: userText, [wsFile]: wsText }), ctx);
    assert.deepEqual(plan.refusals, []);
    assert.deepEqual(
      plan.moves.map((m) => [m.name, m.to, m.entry]),
      [['wsrv', 'qwenOnlyExcluded', { from: wsFile }]],
    );
    const text = plan.changes[0].text;
    assert.ok(text.includes('// mine'), 'comments survive');
    assert.deepEqual(value(text).mcp, { excluded: ['mine-*', 'wsrv'] });
    // Excluded by the repository's own list or the user's glob: starts nowhere, gets nothing.
    assert.ok(plan.notes.some((n) => n.includes('"wsoff"') && n.includes('starts nowhere')));
    assert.ok(plan.notes.some((n) => n.includes('"mine-off"') && n.includes('starts nowhere')));

    const recorded: SetupContext = { ...ctx, qwenOnlyExcluded: new Set(['wsrv']) };
    const again = QWEN.plan(files(QWEN, { [user]: text, [wsFile]: wsText }), recorded);
    assert.deepEqual(again.refusals, []);
    assert.equal(again.changes.length, 0, 'the user file is left as it is');
    assert.deepEqual(
      again.moves.map((m) => m.name),
      ['wsrv'],
      'the record is kept (the planner finds it there)',
    );
    assert.ok(!again.notes.some((n) => n.includes('"wsrv"') && n.includes('starts nowhere')));
  });

  it("never records the user's own exclusion of a repository's server as Qwen's only", () => {
    const wsFile = '/ws/.qwen/settings.json';
    const plan = QWEN.plan(
      files(QWEN, {
        [user]: '{ "mcp": { "excluded": ["wsrv"] } }',
        [wsFile]: '{ "mcpServers": { "wsrv": { "command": "w" } } }',
      }),
      ctx,
    );
    assert.deepEqual(plan.moves, []);
    assert.ok(plan.notes.some((n) => n.includes('"wsrv"') && n.includes('starts nowhere')));
  });

  it("refuses a repository's settings it cannot read: it could not keep Qwen from starting them", () => {
    const wsFile = '/ws/.qwen/settings.json';
    const plan = QWEN.plan(
      files(QWEN, { [user]: '{}', [wsFile]: '{ "mcpServers": { "wsrv": ' }),
      ctx,
    );
    assert.equal(plan.changes.length, 0);
    assert.match(plan.refusals.join('\n'), /\/ws\/\.qwen\/settings\.json/);
  });

  it('refuses when mcp.excluded names mcpctl', () => {
    const plan = QWEN.plan(files(QWEN, { [user]: '{ "mcp": { "excluded": ["mcpctl"] } }' }), ctx);
    assert.equal(plan.changes.length, 0);
    assert.match(plan.refusals.join(), /mcp\.excluded names "mcpctl"/);
  });
});
