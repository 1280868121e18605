import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CURSOR, VSCODE } from './editors.js';
import { parseConfig } from './jsonc-text.js';
import type { AgentFile, AgentSetup, SetupContext } from './types.js';

const ctx: SetupContext = {
  home: '/home/u',
  workspace: '/ws',
  reach: { kind: 'serve', command: 'mcpctl', args: ['serve'] },
  realpath: (f) => f,
};

function plan(agent: AgentSetup, user: string, workspace?: string) {
  const [u, w] = agent.files(ctx) as [string, string];
  const files = new Map<string, AgentFile>([
    [u, { kind: 'text', path: u, text: user, mode: 0o644 }],
    [
      w,
      workspace === undefined
        ? { kind: 'absent', path: w }
        : { kind: 'text', path: w, text: workspace, mode: 0o644 },
    ],
  ]);
  return agent.plan(files, ctx);
}

describe('setup vscode / cursor: the plan', () => {
  it('moves VS Code’s user servers with ${env:X} as ${X}, keeping comments and inputs', () => {
    const p = plan(
      VSCODE,
      `{
  // mine
  "inputs": [],
  "servers": {
    "gh": { "type": "http", "url": "https://h/mcp", "headers": { "Authorization": "Bearer \${env:GH}" } },
    "fs": { "type": "stdio", "command": "node", "args": ["\${userHome}/fs.js"] }
  }
}
`,
      '{ "servers": { "repo": { "command": "r" } } }',
    );
    assert.deepEqual(p.refusals, []);
    assert.deepEqual(
      p.moves.map((m) => m.entry),
      [
        { type: 'http', url: 'https://h/mcp', headers: { Authorization: 'Bearer ${GH}' } },
        { type: 'stdio', command: 'node', args: ['${HOME}/fs.js'] },
      ],
    );
    const text = p.changes[0].text;
    assert.match(text, /\/\/ mine/);
    const v = parseConfig('x', text);
    assert.ok(v.ok);
    assert.deepEqual(Object.keys((v.value as { servers: object }).servers), ['mcpctl']);
    assert.ok(p.notes.some((n) => n.includes('"repo"') && n.includes('keeps starting')));
  });

  it('refuses an input, another editor variable, envFile or dev, naming the entry', () => {
    for (const entry of [
      '{ "command": "c", "env": { "K": "${input:key}" } }',
      '{ "command": "c", "args": ["${workspaceFolder}"] }',
      '{ "command": "c", "envFile": "${userHome}/.env" }',
      '{ "command": "c", "cwd": "${env:HOME}" }',
    ]) {
      const p = plan(CURSOR, `{ "mcpServers": { "bad": ${entry} } }`);
      assert.equal(p.changes.length, 0, entry);
      assert.match(p.refusals.join(), /mcpServers\."bad"/, entry);
      if (entry.includes('envFile')) assert.match(p.refusals.join(), /reads no env file/);
    }
  });
});
