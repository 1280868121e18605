import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeField, escapeText, hasUnshown, jsonEscaped, quoted } from './escape.js';

/** Each character the table must hold, by what it is. */
const UNSHOWN: ReadonlyArray<readonly [string, number]> = [
  ['NUL', 0x0000],
  ['ESC', 0x001b],
  ['DEL', 0x007f],
  ['8-bit CSI', 0x009b],
  ['soft hyphen', 0x00ad],
  ['arabic letter mark', 0x061c],
  ['zero width space', 0x200b],
  ['zero width non-joiner', 0x200c],
  ['zero width joiner', 0x200d],
  ['left-to-right mark', 0x200e],
  ['right-to-left mark', 0x200f],
  ['line separator', 0x2028],
  ['paragraph separator', 0x2029],
  ['left-to-right embedding', 0x202a],
  ['right-to-left override', 0x202e],
  ['word joiner', 0x2060],
  ['invisible separator', 0x2063],
  ['left-to-right isolate', 0x2066],
  ['pop directional isolate', 0x2069],
  ['byte order mark', 0xfeff],
  ['interlinear annotation anchor', 0xfff9],
  ['tag (unassigned)', 0xe0000],
  ['language tag', 0xe0001],
  ['tag latin small a', 0xe0061],
  ['cancel tag', 0xe007f],
];

describe('escape: the one table of unshown characters', { timeout: 10_000 }, () => {
  it('holds every control, bidi, zero-width, separator and tag character', () => {
    for (const [what, cp] of UNSHOWN) {
      const c = String.fromCodePoint(cp);
      assert.ok(hasUnshown(`a${c}b`), `${what} (U+${cp.toString(16)}) is in the table`);
      const shown = escapeField(`a${c}b`);
      assert.ok(!hasUnshown(shown), `${what} is escaped: ${JSON.stringify(shown)}`);
      assert.notEqual(shown, `a${c}b`);
    }
  });

  it('shows each as an escape a person can read, and leaves other text alone', () => {
    assert.equal(escapeField('x\u001b]52;c;SGVsbG8=\u0007y'), 'x\\x1b]52;c;SGVsbG8=\\x07y');
    assert.equal(escapeField('c\u009b2Jd\u007f'), 'c\\x9b2Jd\\x7f');
    assert.equal(escapeField('gpj\u202eexe.txt'), 'gpj\\u202eexe.txt');
    assert.equal(escapeField('git\u200bhub\ufeff'), 'git\\u200bhub\\ufeff');
    assert.equal(escapeField('hi\u{e0041}\u{e007f}'), 'hi\\u{e0041}\\u{e007f}');
    assert.equal(escapeField('k\r\n\tl'), 'k\\r\\n\\tl');
    assert.equal(escapeField('plain ünïcode 名前 🙂 عربي'), 'plain ünïcode 名前 🙂 عربي');
  });

  it('escapeText keeps newlines and tabs', () => {
    assert.equal(escapeText('a\n\tb\r\u202e\u200b'), 'a\n\tb\\r\\u202e\\u200b');
  });

  it('quoted is JSON-quoted and escaped: one value stays one line', () => {
    assert.equal(quoted('node\nsends nothing'), '"node\\nsends nothing"');
    assert.equal(quoted('a"b\u202ec'), '"a\\"b\\u202ec"');
    assert.equal(quoted('\u009b'), '"\\x9b"');
    assert.ok(!hasUnshown(quoted('\u{e0041}\u2066')));
  });

  it('jsonEscaped leaves JSON parsing to the same value, with nothing raw', () => {
    const value = { k: UNSHOWN.map(([, cp]) => String.fromCodePoint(cp)).join('|') };
    const text = jsonEscaped(JSON.stringify(value));
    assert.ok(!hasUnshown(text), text);
    assert.deepEqual(JSON.parse(text), value);
    assert.equal(jsonEscaped('"\u{e0041}"'), '"\\udb40\\udc41"');
  });
});
