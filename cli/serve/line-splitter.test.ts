import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineSplitter } from './line-splitter.js';

function framer(max: number) {
  const out: { text: string; whole: boolean }[] = [];
  const f = new LineSplitter(max, (line, whole) => out.push({ text: line.toString(), whole }));
  return { f, out };
}

describe('LineSplitter', () => {
  it('hands on whole lines, across any chunking, every byte once', () => {
    const { f, out } = framer(100);
    f.push(Buffer.from('a\nb'));
    f.push(Buffer.from('c'));
    f.push(Buffer.from('\nd\ne'));
    assert.deepEqual(out, [
      { text: 'a\n', whole: true },
      { text: 'bc\n', whole: true },
      { text: 'd\n', whole: true },
    ]);
    assert.ok(f.midLine);
    f.reset();
    assert.ok(!f.midLine);
    f.push(Buffer.from('f\n'));
    assert.deepEqual(out.at(-1), { text: 'f\n', whole: true });
  });

  it('hands a line past the limit on in pieces, holding no more than the limit', () => {
    const { f, out } = framer(4);
    f.push(Buffer.from('123'));
    assert.deepEqual(out, []);
    f.push(Buffer.from('45'));
    f.push(Buffer.from('67'));
    f.push(Buffer.from('8\nok\n'));
    assert.deepEqual(out, [
      { text: '12345', whole: false },
      { text: '67', whole: false },
      { text: '8\n', whole: false },
      { text: 'ok\n', whole: true },
    ]);
  });
});
