import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { shareStructure } from './structural-sharing.js';

type Doc = Record<string, unknown>;

/** The data alone (results have null prototypes; literals in tests do not). */
const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x)) as unknown;

test('unchanged subtrees are the previous objects; changed ones are new', () => {
  const before = shareStructure(undefined, {
    mcpServers: { a: { command: 'x', args: ['1'] }, b: { command: 'y', env: { K: 'v' } } },
    ui: { theme: 'light' },
  }) as Doc;
  const after = shareStructure(before, {
    mcpServers: { a: { command: 'x', args: ['1'] }, b: { command: 'y', env: { K: 'w' } } },
    ui: { theme: 'light' },
  }) as Doc;
  const servers = (d: Doc) => d.mcpServers as Record<string, Doc>;
  assert.notEqual(after, before);
  assert.notEqual(after.mcpServers, before.mcpServers);
  assert.equal(servers(after).a, servers(before).a, 'an untouched server keeps its object');
  assert.equal(after.ui, before.ui);
  assert.notEqual(servers(after).b, servers(before).b);
  assert.notEqual(servers(after).b?.env, servers(before).b?.env);
  assert.deepEqual(plain(servers(after).b?.env), { K: 'w' });
});

test('an equal document is the previous document itself', () => {
  const text = '{"a": [1, {"b": null}], "c": "d"}';
  const before = shareStructure(undefined, JSON.parse(text));
  assert.equal(shareStructure(before, JSON.parse(text)), before);
});

test('key order counts for the container, not for its children', () => {
  const before = shareStructure(undefined, { a: { x: 1 }, b: { y: 2 } }) as Doc;
  const after = shareStructure(before, { b: { y: 2 }, a: { x: 1 } }) as Doc;
  assert.notEqual(after, before);
  assert.deepEqual(Object.keys(after), ['b', 'a']);
  assert.equal(after.a, before.a);
  assert.equal(after.b, before.b);
});

test('arrays share by position; a removed key or item makes a new container', () => {
  const before = shareStructure(undefined, { l: [{ a: 1 }, { b: 2 }], k: 1, gone: 2 }) as Doc;
  const after = shareStructure(before, { l: [{ a: 1 }], k: 1 }) as Doc;
  assert.deepEqual(plain(after), { l: [{ a: 1 }], k: 1 });
  assert.equal((after.l as unknown[])[0], (before.l as unknown[])[0]);
  assert.deepEqual(Object.keys(after), ['l', 'k']);
});

test('every object has a null prototype; "__proto__" and "constructor" are data', () => {
  const parsed: unknown = JSON.parse('{"__proto__": {"polluted": 1}, "m": {"constructor": 1}}');
  const doc = shareStructure(undefined, parsed) as Doc;
  assert.equal(Object.getPrototypeOf(doc), null);
  assert.deepEqual(Object.keys(doc), ['__proto__', 'm']);
  assert.equal(Object.getPrototypeOf(doc.m), null);
  assert.equal(({} as Doc).polluted, undefined);
  // A previous document that lacks a key must not lend an inherited value for it.
  const next = shareStructure(shareStructure(undefined, { m: {} }), { m: { toString: 'x' } });
  assert.deepEqual(Object.keys((next as Doc).m as Doc), ['toString']);
});

test('for any two JSON values: the result equals the new one, sharing only equal parts', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
      const before = shareStructure(undefined, a);
      const after = shareStructure(before, b);
      assert.deepEqual(JSON.stringify(after), JSON.stringify(b));
      assert.equal(after === before, JSON.stringify(a) === JSON.stringify(b) || a === b);
    }),
    { numRuns: 500 },
  );
});
