import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSourceError, LineIndex, locateIssue, parseJsonc } from './parse.js';

const F = '/ws/.qwen/settings.json';

test('JSONC with comments and trailing commas parses', { timeout: 5000 }, () => {
  const text = `// leading comment
{
  /* block */ "mcpServers": { "fs": { "command": "node", "args": ["a",], }, },
}
`;
  const r = parseJsonc(F, text);
  assert.deepEqual(r.errors, []);
  assert.equal(JSON.stringify(r.document), '{"mcpServers":{"fs":{"command":"node","args":["a"]}}}');
});

test(
  'empty, whitespace-only and comment-only texts are the empty document',
  { timeout: 5000 },
  () => {
    for (const text of ['', '   \n\t', '// nothing here\n/* at all */\n']) {
      const r = parseJsonc(F, text);
      assert.equal(r.document, undefined, JSON.stringify(text));
      assert.deepEqual(r.errors, [], JSON.stringify(text));
    }
  },
);

test('a missing comma is located at 1-based line and column with a hint', { timeout: 5000 }, () => {
  const text = '{\n  "a": 1\n  "b": 2\n}\n';
  const r = parseJsonc(F, text);
  assert.equal(r.document, undefined);
  assert.equal(r.errors.length, 1);
  const e = r.errors[0];
  assert.ok(e);
  assert.equal(e.file, F);
  assert.equal(e.line, 3);
  assert.equal(e.column, 3);
  assert.match(e.message, /add the missing comma/);
  assert.equal(
    formatSourceError(e),
    `${F}:3:3: syntax error: expected "," between two entries; add the missing comma`,
  );
});

test('unclosed object and single-quoted keys say what to do', { timeout: 5000 }, () => {
  const unclosed = parseJsonc(F, '{\n  "a": {\n    "b": 1\n');
  assert.match(unclosed.errors[0]?.message ?? '', /not closed/);
  assert.equal(unclosed.errors[0]?.line, 4);
  const quotes = parseJsonc(F, "{ 'a': 1 }");
  assert.match(quotes.errors[0]?.message ?? '', /double quotes/);
  assert.equal(quotes.errors[0]?.line, 1);
  assert.equal(quotes.errors[0]?.column, 3);
});

test('objects have no prototype: "__proto__" is an ordinary key', { timeout: 5000 }, () => {
  const r = parseJsonc(F, '{"mcpServers": {"__proto__": {"command": "x"}}}');
  const servers = (r.document as { mcpServers: Record<string, unknown> }).mcpServers;
  assert.deepEqual(Object.keys(servers), ['__proto__']);
  assert.equal(Object.getPrototypeOf(servers), null);
});

test('a UTF-8 BOM is not content', { timeout: 5000 }, () => {
  const r = parseJsonc(F, '\uFEFF{"a": 1}');
  assert.deepEqual(r.errors, []);
  assert.equal((r.document as { a: number }).a, 1);
});

test('duplicate keys are warnings located at the second key', { timeout: 5000 }, () => {
  const r = parseJsonc(F, '{\n  "a": 1,\n  "a": 2\n}');
  assert.deepEqual(r.errors, []);
  assert.equal((r.document as { a: number }).a, 2);
  assert.equal(r.warnings.length, 1);
  assert.equal(r.warnings[0]?.line, 3);
  assert.match(r.warnings[0]?.message ?? '', /a: duplicate key/);
});

test(
  'locateIssue points at the key of the deepest existing node of the path',
  { timeout: 5000 },
  () => {
    const text = '{\n  "mcpServers": {\n    "fs": {\n      "args": "a b"\n    }\n  }\n}\n';
    const tree = parseJsonc(F, text).tree();
    const args = locateIssue(F, text, tree, {
      path: ['mcpServers', 'fs', 'args'],
      message: 'mcpServers.fs.args: expected an array of strings, got a string',
    });
    assert.deepEqual(args, {
      file: F,
      line: 4,
      column: 7,
      message: 'mcpServers.fs.args: expected an array of strings, got a string',
    });
    // A field that is not there is reported at its object's key.
    const missing = locateIssue(F, text, tree, {
      path: ['mcpServers', 'fs', 'command'],
      message: 'x',
    });
    assert.equal(missing.line, 3);
    assert.equal(missing.column, 5);
  },
);

test('LineIndex maps offsets to 1-based positions', { timeout: 5000 }, () => {
  const idx = new LineIndex('ab\ncd\n\nef');
  assert.deepEqual(idx.position(0), { line: 1, column: 1 });
  assert.deepEqual(idx.position(4), { line: 2, column: 2 });
  assert.deepEqual(idx.position(6), { line: 3, column: 1 });
  assert.deepEqual(idx.position(8), { line: 4, column: 2 });
});

test('formatSourceError omits line and column for whole-file errors', { timeout: 5000 }, () => {
  assert.equal(
    formatSourceError({ file: F, line: 0, column: 0, message: 'too big' }),
    `${F}: too big`,
  );
});
