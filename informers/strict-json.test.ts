import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseTree } from 'jsonc-parser';
import { outlineOfTree } from './outline.js';
import { parseStrictJson } from './strict-json.js';

test('strict JSON is parsed; JSONC extras and empty texts are left to the JSONC path', () => {
  assert.deepEqual(parseStrictJson('{"a": [1, {"b": null}]}')?.value, { a: [1, { b: null }] });
  for (const text of [
    '{"a": 1, }',
    '// c\n{"a": 1}',
    '{"a": /* c */ 1}',
    '',
    '  \n',
    '{"a": 1',
    "{'a': 1}",
  ]) {
    assert.equal(parseStrictJson(text), undefined, JSON.stringify(text));
  }
});

test('a duplicate key at any depth is left to the JSONC path, which locates it', () => {
  assert.equal(parseStrictJson('{"a": 1, "a": 2}'), undefined);
  assert.equal(parseStrictJson('{"m": {"s": {"x": 1, "x": 1}}}'), undefined);
  assert.equal(parseStrictJson('[{"k": 1}, {"k": 1, "k": 2}]'), undefined);
  // The same key in different objects is not a duplicate.
  assert.ok(parseStrictJson('{"m": {"k": 1}, "n": {"k": 1}, "k": [{"k": 1}]}'));
});

test('quotes, escapes and colons inside strings do not fool the key count', () => {
  const text = String.raw`{"a\"b": "x\": \"y\":", "c\\": "\\", "d": "\\\"", "e": ":"}`;
  const parsed = parseStrictJson(text);
  assert.ok(parsed);
  assert.deepEqual(Object.keys(parsed.value as object), ['a"b', 'c\\', 'd', 'e']);
  assert.deepEqual(parsed.outline?.keys, ['a"b', 'c\\', 'd', 'e']);
  // A value string that reads like a repeated key is still a value.
  assert.ok(parseStrictJson('{"k": "\\"k\\": 1"}'));
});

test('the outline of the fast path is the outline of the syntax tree', () => {
  const text = `{
  "mcpServers": {
    "fs": { "command": "npx", "args": ["-y", "x"] },
    "web": {"httpUrl": "http://127.0.0.1:1/mcp"}
  },
  "mcp": {"allowed": []},
  "n": -1.5e3, "t": true, "s": "}]", "list": [{"deep": {"x": 1}}], "e": {}
}`;
  const parsed = parseStrictJson(text);
  assert.ok(parsed?.outline);
  const tree = parseTree(text);
  assert.ok(tree);
  assert.deepEqual(parsed.outline, outlineOfTree(tree));
  const servers = parsed.outline.children[0];
  assert.deepEqual(servers?.keys, ['fs', 'web']);
  const fs = text.slice(servers?.starts[0], servers?.ends[0]);
  assert.equal(fs, '{ "command": "npx", "args": ["-y", "x"] }');
});

test('a document that is not an object has no outline', () => {
  assert.equal(parseStrictJson('[1, 2]')?.outline, undefined);
  assert.equal(parseStrictJson('"x"')?.outline, undefined);
});

/** JSON text of a value with random spacing between tokens (what editors and people write). */
function spaced(value: unknown, gap: () => string): string {
  if (Array.isArray(value))
    return `[${gap()}${value.map((v) => spaced(v, gap)).join(`,${gap()}`)}${gap()}]`;
  if (value !== null && typeof value === 'object') {
    const parts = Object.entries(value).map(
      ([k, v]) => `${JSON.stringify(k)}${gap()}:${gap()}${spaced(v, gap)}`,
    );
    return `{${gap()}${parts.join(`${gap()},${gap()}`)}${gap()}}`;
  }
  return JSON.stringify(value);
}

test('for any JSON object and spacing: same value as JSON.parse, same outline as the tree', () => {
  const gaps = fc.array(fc.constantFrom('', ' ', '\n', '\t', '\r\n', '  '), { minLength: 64 });
  fc.assert(
    fc.property(fc.dictionary(fc.string(), fc.jsonValue()), gaps, (doc, spacing) => {
      let i = 0;
      const text = spaced(doc, () => spacing[i++ % spacing.length] ?? '');
      const parsed = parseStrictJson(text);
      assert.ok(parsed, text);
      assert.deepEqual(parsed.value, JSON.parse(text));
      const tree = parseTree(text);
      assert.ok(tree);
      assert.deepEqual(parsed.outline, outlineOfTree(tree));
    }),
    { numRuns: 300 },
  );
});
