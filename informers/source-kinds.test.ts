import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  GEMINI_SETTINGS_KIND,
  LSP_JSON_KIND,
  MAX_GATED_SERVERS_PER_FILE,
  MCP_JSON_KIND,
  PROJECT_LSP_JSON_KIND,
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
      [GEMINI_SETTINGS_KIND, 'Gemini project settings file'],
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
    assert.equal(GEMINI_SETTINGS_KIND.isHotChange, undefined, 'no key of it needs a restart');
    // Only its mcpServers are mcpctl's: Gemini's own keys, even ones Qwen's schema would refuse,
    // are neither read nor errors.
    const gemini = GEMINI_SETTINGS_KIND.validate({
      mcp: { excluded: 'not a list' },
      security: { folderTrust: { enabled: 'yes' } },
      mcpServers: { g: { command: 'g' } },
    });
    assert.deepEqual([gemini.errors, Object.keys(gemini.value)], [[], ['mcpServers']]);
    assert.match(
      PROJECT_MCP_JSON_KIND.validate({ mcpServers: { a: { command: 3 } } }).errors[0]?.message ??
        '',
      /mcpServers\.a\.command/,
    );
  });
});

describe('.lsp.json kinds', () => {
  const lspServers = (n: number) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++)
      out[`s${i}`] = { command: `server-${i}`, extensionToLanguage: { '.ts': 'typescript' } };
    return out;
  };

  it('a project .lsp.json past the cap is invalid before any entry is validated', () => {
    const at = PROJECT_LSP_JSON_KIND.validate(lspServers(MAX_GATED_SERVERS_PER_FILE));
    assert.deepEqual(at.errors, []);
    assert.equal(Object.keys(at.value).length, MAX_GATED_SERVERS_PER_FILE);
    // Entries that would each be an error: only the one cap error is reported.
    const flood: Record<string, unknown> = {};
    for (let i = 0; i < 50_000; i++) flood[`s${i}`] = 'not an object';
    const past = PROJECT_LSP_JSON_KIND.validate(flood);
    assert.deepEqual(Object.keys(past.value), []);
    assert.equal(past.errors.length, 1);
    assert.deepEqual(past.errors[0]?.path, []);
    assert.match(
      past.errors[0]?.message ?? '',
      /^50000 language servers, more than the 1000 a project \.lsp\.json may hold; .* --lsp-config$/,
    );
  });

  it('--lsp-config is not capped, and neither kind has a restart gate', () => {
    const v = LSP_JSON_KIND.validate(lspServers(5000));
    assert.deepEqual(v.errors, []);
    assert.equal(Object.keys(v.value).length, 5000);
    assert.equal(LSP_JSON_KIND.isHotChange, undefined);
    assert.equal(PROJECT_LSP_JSON_KIND.isHotChange, undefined);
  });
});
