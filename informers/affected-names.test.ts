import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  LANGUAGE_SERVER,
  MCP_SERVER,
  type ComputedGating,
  type DesiredServer,
  type McpServerConfig,
  type Scope,
} from '../api/index.js';
import {
  affectedNames,
  gatingMovedNames,
  sourceErrorsChanged,
  specChangedNames,
} from './affected-names.js';
import type { DesiredState } from './types.js';

function server(name: string, config: McpServerConfig, scope: Scope = 'user'): DesiredServer {
  return { name, config, scope, source: `/${scope}.json` };
}

function state(
  servers: DesiredServer[],
  gating: Partial<ComputedGating> = {},
  trusted = true,
): DesiredState {
  return {
    kinds: {
      [MCP_SERVER]: {
        servers: Object.fromEntries(servers.map((s) => [s.name, s])),
        gating: { excluded: [], pending: [], ...gating },
        trusted,
      },
      [LANGUAGE_SERVER]: { servers: {}, gating: { excluded: [], pending: [] }, trusted },
    },
    mcp: undefined,
    trusted,
    sources: [],
  };
}

test('added, removed and changed servers; key order is not a change', { timeout: 5000 }, () => {
  const before = state([
    server('keep', { command: 'n', env: { A: '1', B: '2' } }),
    server('gone', { command: 'x' }),
    server('edit', { command: 'n', args: ['a', 'b'] }),
  ]);
  const after = state([
    server('keep', { env: { B: '2', A: '1' }, command: 'n' }),
    server('edit', { command: 'n', args: ['b', 'a'] }),
    server('new', { command: 'y' }),
  ]);
  assert.deepEqual(affectedNames(before, after, MCP_SERVER), ['edit', 'gone', 'new']);
});

test('a scope move with the same config is a change', { timeout: 5000 }, () => {
  const before = state([server('a', { command: 'n' }, 'user')]);
  const after = state([server('a', { command: 'n' }, 'project')]);
  assert.deepEqual(
    specChangedNames(before.kinds.McpServer.servers, after.kinds.McpServer.servers),
    ['a'],
  );
});

test('gating: only names whose membership moved', { timeout: 5000 }, () => {
  const servers = [server('a', { command: 'a' }), server('b', { command: 'b' })];
  assert.deepEqual(affectedNames(state(servers), state(servers, { excluded: ['b'] }), MCP_SERVER), [
    'b',
  ]);
  // Allowlist appears: everyone it does not list loses admission.
  assert.deepEqual(affectedNames(state(servers), state(servers, { allowed: ['a'] }), MCP_SERVER), [
    'b',
  ]);
  // `[]` vs absent is a change for every server.
  assert.deepEqual(affectedNames(state(servers), state(servers, { allowed: [] }), MCP_SERVER), [
    'a',
    'b',
  ]);
  // Reordering a list moves nobody.
  assert.deepEqual(
    affectedNames(
      state(servers, { excluded: ['a', 'b'] }),
      state(servers, { excluded: ['b', 'a'] }),
      MCP_SERVER,
    ),
    [],
  );
  assert.deepEqual(
    gatingMovedNames({ excluded: [], pending: ['a'] }, { excluded: [], pending: [] }, []),
    ['a'],
  );
});

test('trust flip affects every name of both states', { timeout: 5000 }, () => {
  const before = state([server('a', { command: 'a' })], {}, true);
  const after = state([server('a', { command: 'a' }), server('b', { command: 'b' })], {}, false);
  assert.deepEqual(affectedNames(before, after, MCP_SERVER), ['a', 'b']);
});

test('identical states affect nothing', { timeout: 5000 }, () => {
  const s = [server('a', { command: 'a' })];
  assert.deepEqual(
    affectedNames(state(s, { allowed: ['a'] }), state(s, { allowed: ['a'] }), MCP_SERVER),
    [],
  );
});

test('sourceErrorsChanged follows errors, not warnings or existence', { timeout: 5000 }, () => {
  const base = {
    file: '/f',
    scope: 'user' as const,
    holds: 'servers' as const,
    exists: true,
    warnings: [],
    inForce: true,
  };
  const bad = [{ ...base, errors: [{ file: '/f', line: 1, column: 2, message: 'x' }] }];
  const good = [{ ...base, errors: [] }];
  assert.equal(sourceErrorsChanged(good, bad), true);
  assert.equal(sourceErrorsChanged(bad, good), true);
  assert.equal(sourceErrorsChanged(good, [{ ...base, exists: false, errors: [] }]), false);
  assert.equal(
    sourceErrorsChanged(bad, [
      { ...base, errors: [{ file: '/f', line: 3, column: 1, message: 'y' }] },
    ]),
    true,
  );
});

test(
  'language servers: their own spec and gating moves, trust flips; never the MCP names',
  { timeout: 5000 },
  () => {
    const ls = (name: string, command: string, scope: 'project' | 'cli' = 'project') => ({
      kind: 'LanguageServer' as const,
      name,
      config: { command, extensionToLanguage: { '.ts': 'typescript' } },
      scope,
      source: `/${scope}.lsp.json`,
    });
    const withLsp = (
      base: DesiredState,
      servers: ReturnType<typeof ls>[],
      lspGating: Partial<ComputedGating> = {},
    ): DesiredState => ({
      ...base,
      kinds: {
        ...base.kinds,
        [LANGUAGE_SERVER]: {
          servers: Object.fromEntries(servers.map((s) => [s.name, s])),
          gating: { excluded: [], pending: [], ...lspGating },
          trusted: base.trusted,
        },
      },
    });
    const mcp = state([server('ts', { command: 'n' })]);
    const before = withLsp(mcp, [ls('ts', 'a'), ls('keep', 'k'), ls('moved', 'm')]);
    const after = withLsp(
      state([server('ts', { command: 'other' })]),
      [ls('ts', 'b'), ls('keep', 'k'), ls('moved', 'm', 'cli'), ls('new', 'n')],
      { allowed: ['keep', 'moved', 'new', 'ts'] },
    );
    assert.deepEqual(affectedNames(before, after, LANGUAGE_SERVER), ['moved', 'new', 'ts']);
    assert.deepEqual(affectedNames(before, after, MCP_SERVER), ['ts']);
    const lspOnly = withLsp(mcp, [ls('keep', 'k')]);
    assert.deepEqual(
      affectedNames(before, lspOnly, MCP_SERVER),
      [],
      'an .lsp.json edit names no MCP server',
    );
    const pendingMoved = withLsp(mcp, [ls('ts', 'a'), ls('keep', 'k'), ls('moved', 'm')], {
      pending: ['keep'],
    });
    assert.deepEqual(affectedNames(before, pendingMoved, LANGUAGE_SERVER), ['keep']);
    const distrusted = { ...before, trusted: false };
    assert.deepEqual(affectedNames(before, distrusted, LANGUAGE_SERVER), ['keep', 'moved', 'ts']);
  },
);
