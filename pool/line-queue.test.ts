import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineQueue, type DroppedLine } from './line-queue.js';

function drain(f: LineQueue): Array<string | DroppedLine> {
  const out: Array<string | DroppedLine> = [];
  for (let line = f.next(); line !== undefined; line = f.next()) out.push(line);
  return out;
}

test('lines come out whole, one at a time, across chunks and \\r\\n', () => {
  const f = new LineQueue();
  const euro = Buffer.from('€');
  f.append(Buffer.concat([Buffer.from('a\r\nb'), euro.subarray(0, 1)]));
  assert.equal(f.hasLine(), true);
  assert.equal(f.next(), 'a');
  assert.equal(f.next(), undefined, 'no newline yet');
  f.append(Buffer.concat([euro.subarray(1), Buffer.from('\n\nc\n')]));
  assert.deepEqual(drain(f), ['b€', '', 'c']);
  assert.equal(f.hasLine(), false);
});

test('a line past the limit is dropped in its place, the lines around it kept', () => {
  const f = new LineQueue(10);
  assert.equal(f.append(Buffer.from('before\n{"id":7,')), 0);
  assert.equal(f.append(Buffer.from('"result":"0123456789')), 28, 'what was held goes too');
  assert.deepEqual(drain(f), ['before'], 'the long line is not out before its end');
  assert.equal(f.append(Buffer.from('abcdef"}\nafter\n')), 8);
  assert.deepEqual(drain(f), [{ kind: 'answer', id: 7, bytes: 36 }, 'after']);
  // Whole lines in one chunk: only the long one goes.
  f.append(Buffer.from('a\n{"method":"m","params":"0123456789"}\nb\n'));
  assert.deepEqual(drain(f), ['a', { kind: 'notification', method: 'm', bytes: 36 }, 'b']);
});

test('what is held of a line never passes the limit, however long the line', () => {
  const f = new LineQueue(10);
  let most = 0;
  f.append(Buffer.from('{"id":"x","result":"'));
  for (let i = 0; i < 1000; i += 1) {
    f.append(Buffer.from('0123456'));
    most = Math.max(most, f.heldBytes);
  }
  f.append(Buffer.from('"}\nok\n'));
  assert.ok(most <= 10, `held ${most} bytes`);
  assert.deepEqual(drain(f), [{ kind: 'answer', id: 'x', bytes: 7022 }, 'ok']);
  assert.equal(f.heldBytes, 0);
});

test('a line of exactly the limit is kept', () => {
  const f = new LineQueue(10);
  f.append(Buffer.from('0123456789\n'));
  assert.deepEqual(drain(f), ['0123456789']);
});
