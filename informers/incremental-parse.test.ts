import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { reparseEdit } from './incremental-parse.js';
import { parseJsonc } from './parse.js';

const F = '/ws/.qwen/settings.json';

type Doc = Record<string, unknown>;

/** The data alone (documents have null prototypes; literals in tests do not). */
const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x)) as unknown;

function servers(n: number): Doc {
  const out: Doc = {};
  for (let i = 0; i < n; i++) out[`s${i}`] = { command: 'node', args: [`s${i}.js`, '--v0'] };
  return out;
}

const BIG = JSON.stringify({ mcpServers: servers(40), ui: { theme: 'light' } }, null, 2);

test('an edit inside one server re-parses only that server and shares the rest', () => {
  const before = parseJsonc(F, BIG).document as Doc;
  const text = BIG.replace('"s7.js"', '"s7.js", "--debug"');
  const edit = reparseEdit(before, text);
  assert.ok(edit, 'taken incrementally');
  assert.deepEqual(edit.document, parseJsonc(F, text).document);
  const b = before.mcpServers as Doc;
  const a = (edit.document as Doc).mcpServers as Doc;
  assert.deepEqual(plain(a.s7), { command: 'node', args: ['s7.js', '--debug', '--v0'] });
  assert.equal(a.s6, b.s6);
  assert.equal((edit.document as Doc).ui, before.ui);
  assert.deepEqual(Object.keys(a), Object.keys(b), 'key order kept');
  assert.equal(Object.getPrototypeOf(a), null);
});

test('successive edits keep working from the newest text (the outline moves along)', () => {
  let doc = parseJsonc(F, BIG).document;
  let text = BIG;
  for (const [from, to] of [
    ['"s3.js"', '"s3.js", "--x", "--yy"'],
    ['"s30.js"', '"S30"'],
    ['"light"', '"dark"'],
    ['"s39.js"', '"s39.js", {"k": 1}'],
    ['"s0.js"', '"s0"'],
  ] as const) {
    text = text.replace(from, to);
    const edit = reparseEdit(doc, text);
    assert.ok(edit, `taken incrementally: ${to}`);
    assert.deepEqual(edit.document, parseJsonc(F, text).document);
    doc = edit.document;
  }
});

test('a format-only edit inside a server gives the previous document itself', () => {
  const before = parseJsonc(F, BIG).document;
  const text = BIG.replace(
    '"command": "node",\n      "args": [\n        "s5.js"',
    '"command":"node","args":["s5.js"',
  );
  assert.notEqual(text, BIG);
  assert.equal(reparseEdit(before, text)?.document, before);
});

test('edits it cannot take alone fall back to the full parse, with the same result', () => {
  const before = parseJsonc(F, BIG).document;
  const cases: [string, string][] = [
    // Between servers: adding and removing whole entries.
    [BIG, BIG.replace('"s1": {', '"new": {"command": "x"},\n    "s1": {')],
    // A duplicate key inside the edited server: the full parse locates it as a warning.
    [
      BIG,
      BIG.replace(
        '"command": "node",\n      "args": [\n        "s2.js"',
        '"command": "node", "command": "x", "args": ["s2.js"',
      ),
    ],
    // The edit turns the value into something more than one value.
    [
      BIG,
      BIG.replace(
        '"--v0"\n      ]\n    },\n    "s9"',
        '"--v0"\n      ]\n    }, "extra": 1,\n    "s9"',
      ),
    ],
    // A comment right after the value swallows the comma that follows it on the line.
    [
      BIG,
      BIG.replace(
        '"s3.js",\n        "--v0"\n      ]\n    }',
        '"s3.js",\n        "--v0"\n      ]\n    } // note',
      ),
    ],
    // A syntax error inside a server.
    [BIG, BIG.replace('"s8.js",', '"s8.js" "oops",')],
    // A key is renamed (outside every value span).
    [BIG, BIG.replace('"s11": {', '"renamed": {')],
  ];
  for (const [, text] of cases) {
    assert.notEqual(text, BIG);
    assert.equal(reparseEdit(before, text), undefined, text.slice(0, 80));
    const incremental = parseJsonc(F, text, before);
    const full = parseJsonc(F, text);
    assert.deepEqual(incremental.document, full.document);
    assert.deepEqual(incremental.errors, full.errors);
    assert.deepEqual(incremental.warnings, full.warnings);
  }
});

test('a document whose text had duplicate keys is never patched', () => {
  const text =
    '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}, "ui": {"theme": "light"}}';
  const parsed = parseJsonc(F, text);
  assert.equal(parsed.warnings.length, 1);
  assert.equal(reparseEdit(parsed.document, text.replace('light', 'dark')), undefined);
});

test('JSONC files (comments, trailing commas) take the incremental path too', () => {
  const text = `// user settings
{
  "mcpServers": {
    /* local */ "a": { "command": "x", "args": ["1",], },
    "b": { "command": "y" }, // remote soon
    ${Array.from({ length: 20 }, (_, i) => `"p${i}": { "command": "p" },`).join('\n    ')}
  },
}
`;
  const before = parseJsonc(F, text).document;
  const next = text.replace('["1",]', '["1", /* two */ "2",]');
  const edit = reparseEdit(before, next);
  assert.ok(edit);
  assert.deepEqual(edit.document, parseJsonc(F, next).document);
});

test('for random edits of a big file: incremental and full parse always agree', () => {
  const base = JSON.stringify({ mcpServers: servers(24), mcp: { allowed: ['s1'] } }, null, 2);
  const alphabet = fc.constantFrom(...'{}[]",:/* \n1aes-\\'.split(''), '"x"', 'true', '//');
  // Raw edits anywhere (mostly breaking the syntax) and edits that keep it valid (a string
  // value replaced by any other JSON value), so both paths and their mixes are exercised.
  const raw = fc.record({
    at: fc.nat(),
    remove: fc.nat({ max: 6 }),
    insert: fc.array(alphabet, { maxLength: 4 }).map((a) => a.join('')),
  });
  const valid = fc
    .record({ k: fc.nat({ max: 23 }), value: fc.jsonValue({ maxDepth: 2 }) })
    .map(({ k, value }) => ({ find: `"s${k}.js"`, insert: JSON.stringify(value) }));
  const edit = fc.oneof(raw, valid);
  let taken = 0;
  let tried = 0;
  fc.assert(
    fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
      let text = base;
      let previous = parseJsonc(F, text).document;
      for (const e of edits) {
        if ('find' in e) {
          if (!text.includes(e.find)) continue;
          text = text.replace(e.find, e.insert);
        } else {
          const at = e.at % text.length;
          text = text.slice(0, at) + e.insert + text.slice(at + e.remove);
        }
        tried++;
        if (reparseEdit(previous, text) !== undefined) taken++;
        const incremental = parseJsonc(F, text, previous);
        const full = parseJsonc(F, text);
        assert.deepEqual(incremental.document, full.document, text);
        assert.deepEqual(incremental.errors, full.errors);
        assert.deepEqual(incremental.warnings, full.warnings);
        // Keep-last-good, as the file source does: a broken text leaves the previous document.
        if (full.errors.length === 0 && full.document !== undefined)
          previous = incremental.document;
      }
    }),
    { numRuns: 400 },
  );
  // The property means something only if many edits really took the incremental path.
  assert.ok(taken > tried / 5, `${taken} of ${tried} edits were incremental`);
});
