import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalJson,
  jsonEqual,
  mcpGatingEqual,
  mcpServersEqual,
  serverConfigEqual,
} from './equality.js';
import type { McpServerConfig } from './server-config.js';

const FS: McpServerConfig = {
  command: 'node',
  args: ['server.js', '--root', '/data'],
  env: { A: '1', B: '2' },
  headers: { X: 'y' },
};

describe('mcpServersEqual (DESIGN §4 rule 5)', { timeout: 10_000 }, () => {
  it('ignores object key order, at every depth', () => {
    const reordered: McpServerConfig = {
      headers: { X: 'y' },
      env: { B: '2', A: '1' },
      args: ['server.js', '--root', '/data'],
      command: 'node',
    };
    assert.equal(
      mcpServersEqual(
        { fs: FS, web: { url: 'https://a.test' } },
        {
          web: { url: 'https://a.test' },
          fs: reordered,
        },
      ),
      true,
    );
  });

  it('treats an args reorder as a change', () => {
    assert.equal(
      mcpServersEqual({ fs: FS }, { fs: { ...FS, args: ['--root', '/data', 'server.js'] } }),
      false,
    );
  });

  it('detects a change nested in env or headers', () => {
    assert.equal(mcpServersEqual({ fs: FS }, { fs: { ...FS, env: { A: '1', B: '3' } } }), false);
    assert.equal(mcpServersEqual({ fs: FS }, { fs: { ...FS, env: { A: '1' } } }), false);
    assert.equal(mcpServersEqual({ fs: FS }, { fs: { ...FS, headers: { X: 'z' } } }), false);
  });

  it('treats undefined as {}', () => {
    assert.equal(mcpServersEqual(undefined, {}), true);
    assert.equal(mcpServersEqual({}, undefined), true);
    assert.equal(mcpServersEqual(undefined, undefined), true);
    assert.equal(mcpServersEqual(undefined, { fs: FS }), false);
  });

  it('detects an added or removed server', () => {
    assert.equal(mcpServersEqual({ fs: FS }, { fs: FS, web: { url: 'https://a.test' } }), false);
    assert.equal(mcpServersEqual({ fs: FS, web: { url: 'https://a.test' } }, { fs: FS }), false);
    assert.equal(mcpServersEqual({ fs: FS }, { other: FS }), false);
  });

  it('compares null-prototype maps (as the validator builds them) like plain ones', () => {
    const map = Object.create(null) as Record<string, McpServerConfig>;
    map.fs = FS;
    assert.equal(mcpServersEqual(map, { fs: { ...FS } }), true);
  });
});

describe('serverConfigEqual', { timeout: 10_000 }, () => {
  it('compares one entry the same way, with undefined only equal to undefined', () => {
    assert.equal(serverConfigEqual(FS, { ...FS, env: { B: '2', A: '1' } }), true);
    assert.equal(serverConfigEqual(FS, { ...FS, args: [...FS.args!].reverse() }), false);
    assert.equal(serverConfigEqual(undefined, undefined), true);
    assert.equal(serverConfigEqual(FS, undefined), false);
  });
});

describe('mcpGatingEqual (DESIGN §4 rule 3)', { timeout: 10_000 }, () => {
  it('compares lists as sets: order is ignored', () => {
    assert.equal(
      mcpGatingEqual(
        { excluded: ['a', 'b'], allowed: ['x', 'y'], pending: ['p', 'q'] },
        { excluded: ['b', 'a'], allowed: ['y', 'x'], pending: ['q', 'p'] },
      ),
      true,
    );
  });

  it('detects a different member in any list', () => {
    assert.equal(mcpGatingEqual({ excluded: ['a'] }, { excluded: ['b'] }), false);
    assert.equal(mcpGatingEqual({ allowed: ['a'] }, { allowed: ['a', 'b'] }), false);
    assert.equal(mcpGatingEqual({ pending: ['a'] }, { pending: [] }), false);
  });

  it('treats excluded and pending undefined as []', () => {
    assert.equal(mcpGatingEqual({}, { excluded: [], pending: [] }), true);
    assert.equal(mcpGatingEqual({ excluded: [] }, {}), true);
    assert.equal(mcpGatingEqual({ pending: undefined }, { pending: [] }), true);
  });

  it('keeps allowed absent (everyone) apart from [] (no one)', () => {
    assert.equal(mcpGatingEqual({}, { allowed: [] }), false);
    assert.equal(mcpGatingEqual({ allowed: [] }, {}), false);
    assert.equal(mcpGatingEqual({ allowed: [] }, { allowed: [] }), true);
    assert.equal(mcpGatingEqual({}, {}), true);
  });
});

describe('jsonEqual', { timeout: 5_000 }, () => {
  it('judges like canonical JSON: key order ignored, array order kept, undefined keys absent', () => {
    assert.equal(
      jsonEqual({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }),
      true,
    );
    assert.equal(jsonEqual({ a: [1, 2] }, { a: [2, 1] }), false);
    assert.equal(jsonEqual({ a: 1, x: undefined }, { a: 1 }), true);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, b: null }), false);
    assert.equal(jsonEqual({ a: {} }, { a: [] }), false);
    assert.equal(jsonEqual([], {}), false);
    assert.equal(jsonEqual('1', 1), false);
    assert.equal(jsonEqual({ env: { A: '1' } }, { env: { A: '2' } }), false);
    for (const [x, y] of [
      [
        { a: 1, b: { c: [1, 2] } },
        { b: { c: [1, 2] }, a: 1 },
      ],
      [{ a: 1 }, { a: 2 }],
      [{ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] }],
    ] as const) {
      assert.equal(jsonEqual(x, y), canonicalJson(x) === canonicalJson(y));
    }
  });
});
