import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  encodingOf,
  fromLspPosition,
  fromLspRange,
  POSITION_ENCODINGS,
  TextLines,
  toLspPosition,
  type PositionEncoding,
} from './positions.js';

const to = (text: string, line: number, column: number, enc: PositionEncoding) =>
  toLspPosition(new TextLines(text), { line, column }, enc);
const from = (text: string, line: number, character: number, enc: PositionEncoding) =>
  fromLspPosition(new TextLines(text), { line, character }, enc);

test('ASCII: every encoding counts one unit per column, lines from 0', () => {
  for (const enc of POSITION_ENCODINGS) {
    assert.deepEqual(to('abc\ndef', 2, 3, enc), { line: 1, character: 2 });
    assert.deepEqual(from('abc\ndef', 1, 2, enc), { line: 2, column: 3 });
  }
});

test('non-ASCII in the basic plane: one column, one UTF-16 unit, two or three UTF-8 bytes', () => {
  // `é` (U+00E9, 2 bytes), `→` (U+2192, 3 bytes), then `x`.
  const text = 'é→x';
  assert.deepEqual(to(text, 1, 3, 'utf-16'), { line: 0, character: 2 });
  assert.deepEqual(to(text, 1, 3, 'utf-8'), { line: 0, character: 5 });
  assert.deepEqual(to(text, 1, 3, 'utf-32'), { line: 0, character: 2 });
  assert.deepEqual(from(text, 0, 5, 'utf-8'), { line: 1, column: 3 });
  assert.deepEqual(from(text, 0, 2, 'utf-16'), { line: 1, column: 3 });
});

test('astral characters (emoji): one column, two UTF-16 units, four UTF-8 bytes, one UTF-32 unit', () => {
  const text = 'a😀b🎉c';
  // Column 4 is `🎉`: after a, 😀, b.
  assert.deepEqual(to(text, 1, 4, 'utf-16'), { line: 0, character: 4 });
  assert.deepEqual(to(text, 1, 4, 'utf-8'), { line: 0, character: 6 });
  assert.deepEqual(to(text, 1, 4, 'utf-32'), { line: 0, character: 3 });
  assert.deepEqual(from(text, 0, 4, 'utf-16'), { line: 1, column: 4 });
  assert.deepEqual(from(text, 0, 6, 'utf-8'), { line: 1, column: 4 });
  assert.deepEqual(from(text, 0, 3, 'utf-32'), { line: 1, column: 4 });
  // The end of the line: 5 code points, column 6.
  assert.deepEqual(from(text, 0, 7, 'utf-16'), { line: 1, column: 6 });
});

test('a character inside a code point lands on that code point, never past it', () => {
  const text = 'a😀b';
  // UTF-16 unit 2 is the second half of 😀 (units 1–2): column 2, the emoji.
  assert.deepEqual(from(text, 0, 2, 'utf-16'), { line: 1, column: 2 });
  // UTF-8 bytes 2, 3, 4 are inside 😀 (bytes 1–4).
  for (const byte of [2, 3, 4])
    assert.deepEqual(from(text, 0, byte, 'utf-8'), { line: 1, column: 2 });
  assert.deepEqual(from(text, 0, 5, 'utf-8'), { line: 1, column: 3 });
});

test('CRLF and lone CR end lines like LF, and are never part of a column', () => {
  for (const text of ['ab\r\ncd\r\nef', 'ab\rcd\ref', 'ab\ncd\nef', 'ab\r\ncd\ref']) {
    assert.deepEqual(to(text, 3, 2, 'utf-16'), { line: 2, character: 1 }, JSON.stringify(text));
    // The end of line 1 is character 2, not 3 (the \r is no character of it).
    assert.deepEqual(to(text, 1, 99, 'utf-16'), { line: 0, character: 2 }, JSON.stringify(text));
    assert.deepEqual(from(text, 1, 2, 'utf-16'), { line: 2, column: 3 }, JSON.stringify(text));
  }
  assert.equal(new TextLines('a\r\nb\r\n').lineCount, 3);
});

test('past the end: a column past its line is the line end, a line past the last the text end', () => {
  const text = 'short\nlonger line\nend😀';
  assert.deepEqual(to(text, 1, 50, 'utf-16'), { line: 0, character: 5 });
  assert.deepEqual(from(text, 0, 50, 'utf-16'), { line: 1, column: 6 });
  assert.deepEqual(to(text, 9, 1, 'utf-16'), { line: 2, character: 5 });
  assert.deepEqual(to(text, 9, 1, 'utf-8'), { line: 2, character: 7 });
  assert.deepEqual(from(text, 9, 0, 'utf-16'), { line: 3, column: 5 });
  // Zero and negative numbers are the start, not an error.
  assert.deepEqual(to(text, 0, 0, 'utf-16'), { line: 0, character: 0 });
  assert.deepEqual(from(text, -1, -4, 'utf-16'), { line: 1, column: 1 });
});

test('empty text and empty lines', () => {
  assert.equal(new TextLines('').lineCount, 1);
  assert.deepEqual(to('', 1, 1, 'utf-16'), { line: 0, character: 0 });
  assert.deepEqual(from('', 0, 3, 'utf-8'), { line: 1, column: 1 });
  assert.deepEqual(to('a\n\nb', 2, 4, 'utf-16'), { line: 1, character: 0 });
});

test('ranges convert both ends', () => {
  const lines = new TextLines('const 名前 = 1;\nlet 😀 = 2;');
  assert.deepEqual(
    fromLspRange(
      lines,
      { start: { line: 0, character: 6 }, end: { line: 1, character: 6 } },
      'utf-16',
    ),
    { line: 1, column: 7, endLine: 2, endColumn: 6 },
  );
});

test('the negotiated encoding: utf-16 unless the server chose one we know', () => {
  assert.equal(encodingOf(undefined), 'utf-16');
  assert.equal(encodingOf('utf-8'), 'utf-8');
  assert.equal(encodingOf('utf-32'), 'utf-32');
  assert.equal(encodingOf('latin-1'), 'utf-16');
});

test('round trip: every code-point boundary of every line, in every encoding', () => {
  // Code points from every UTF-8 length and both UTF-16 widths, plus the line terminators.
  const piece = fc.constantFrom('a', 'é', '→', '名', '😀', '𝄞', ' ', '\n', '\r\n', '\r');
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 40 }),
      fc.constantFrom(...POSITION_ENCODINGS),
      (parts, enc) => {
        const text = parts.join('');
        const lines = new TextLines(text);
        for (let i = 0; i < lines.lineCount; i += 1) {
          const count = [...lines.line(i)].length;
          for (let column = 1; column <= count + 1; column += 1) {
            const lsp = toLspPosition(lines, { line: i + 1, column }, enc);
            assert.deepEqual(fromLspPosition(lines, lsp, enc), { line: i + 1, column });
          }
        }
      },
    ),
  );
});
