import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineFramer } from './line-framer.js';

function drain(f: LineFramer): string[] {
  const out: string[] = [];
  for (let line = f.next(); line !== undefined; line = f.next()) out.push(line);
  return out;
}

test('lines come out whole, one at a time, across chunks and \\r\\n', () => {
  const f = new LineFramer();
  const euro = Buffer.from('€');
  f.append(Buffer.concat([Buffer.from('a\r\nb'), euro.subarray(0, 1)]));
  assert.equal(f.hasLine(), true);
  assert.equal(f.next(), 'a');
  assert.equal(f.next(), undefined, 'no newline yet');
  f.append(Buffer.concat([euro.subarray(1), Buffer.from('\n\nc\n')]));
  assert.deepEqual(drain(f), ['b€', '', 'c']);
  assert.equal(f.hasLine(), false);
});

test('pending bytes are bounded', () => {
  const f = new LineFramer(10);
  f.append(Buffer.from('12345'));
  assert.throws(() => f.append(Buffer.from('678901')), /longer than 10 bytes/);
  assert.equal(f.next(), undefined, 'cleared');
  f.append(Buffer.from('ok\n'));
  assert.deepEqual(drain(f), ['ok']);
});
