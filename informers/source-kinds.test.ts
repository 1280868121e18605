import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_GATED_SERVERS_PER_FILE,
  MCP_JSON_KIND,
  PROJECT_MCP_JSON_KIND,
  SETTINGS_KIND,
  WORKSPACE_SETTINGS_KIND,
} from './source-kinds.js';

function servers(n: number): Record<string, { command: string }> {
  const out: Record<string, { command: string }> = {};
  for (let i = 0; i < n; i++) out[`s${i}`] = { command: `server-${i}` };
  return out;
}

describe('server cap of the gated scopes (issue 13, finding 13)', () => {
  it('a project .mcp.json or workspace settings past the cap is invalid, naming the count and the cap', () => {
    for (const [kind, label] of [
      [PROJECT_MCP_JSON_KIND, 'project .mcp.json'],
      [WORKSPACE_SETTINGS_KIND, 'workspace settings file'],
    ] as const) {
      const at = kind.validate({ mcpServers: servers(MAX_GATED_SERVERS_PER_FILE) });
      assert.deepEqual(at.errors, [], label);
      assert.equal(Object.keys(at.value.mcpServers ?? {}).length, MAX_GATED_SERVERS_PER_FILE);
      const past = kind.validate({ mcpServers: servers(50_000) });
      assert.deepEqual(past.value, {}, 'nothing of it is taken');
      assert.equal(past.errors.length, 1);
      assert.deepEqual(past.errors[0]?.path, ['mcpServers']);
      assert.match(
        past.errors[0]?.message ?? '',
        new RegExp(`50000 servers, more than the ${MAX_GATED_SERVERS_PER_FILE} a ${label}`),
      );
    }
  });

  it("the user's own files and --mcp-config are not capped (the bench's 10,000 servers)", () => {
    for (const kind of [SETTINGS_KIND, MCP_JSON_KIND]) {
      const v = kind.validate({ mcpServers: servers(10_000) });
      assert.deepEqual(v.errors, []);
      assert.equal(Object.keys(v.value.mcpServers ?? {}).length, 10_000);
    }
  });

  it('the gated kinds keep the rest of their kind (restart gate, other errors)', () => {
    assert.equal(WORKSPACE_SETTINGS_KIND.isHotChange, SETTINGS_KIND.isHotChange);
    assert.equal(PROJECT_MCP_JSON_KIND.isHotChange, undefined);
    assert.match(
      PROJECT_MCP_JSON_KIND.validate({ mcpServers: { a: { command: 3 } } }).errors[0]?.message ??
        '',
      /mcpServers\.a\.command/,
    );
  });
});
