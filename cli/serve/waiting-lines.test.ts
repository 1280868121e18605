import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../testing/until.js';
import { MAX_QUEUED_BYTES, WaitingLines } from './waiting-lines.js';
import type { AgentCall } from './in-flight.js';

const call: AgentCall = { method: 'tools/call', task: false };

function lines() {
  const answered: Array<[string, string]> = [];
  let changes = 0;
  const waiting = new WaitingLines({
    answer: (id, message) => answered.push([id, message]),
    changed: () => (changes += 1),
    expired: 'no daemon came back',
  });
  return { waiting, answered, changes: () => changes };
}

test('lines keep their order, sent-again requests first; taking them empties the queue', () => {
  const { waiting, changes } = lines();
  waiting.add({ line: Buffer.from('a\n') });
  waiting.prepend([{ line: Buffer.from('again\n') }]);
  waiting.add({ line: Buffer.from('b\n') });
  assert.equal(changes(), 2);
  assert.deepEqual(
    waiting.takeAll().map((q) => q.line.toString()),
    ['again\n', 'a\n', 'b\n'],
  );
  assert.equal(waiting.length, 0);
});

test('past MAX_QUEUED_BYTES the queue is full until lines go', () => {
  const { waiting } = lines();
  waiting.add({ line: Buffer.alloc(MAX_QUEUED_BYTES) });
  assert.equal(waiting.full, false);
  waiting.add({ line: Buffer.alloc(1), request: { id: '1', call, until: Date.now() + 60_000 } });
  assert.equal(waiting.full, true);
  waiting.remove('1');
  assert.equal(waiting.full, false);
  waiting.stop();
});

test(
  'a request that waited its time is answered; failAll answers the rest at once',
  { timeout: 10_000 },
  async () => {
    const { waiting, answered } = lines();
    waiting.add({ line: Buffer.from('x\n'), request: { id: '1', call, until: Date.now() } });
    waiting.add({
      line: Buffer.from('y\n'),
      request: { id: '2', call, until: Date.now() + 60_000 },
    });
    waiting.add({ line: Buffer.from('z\n') });
    await until('the expired request answered', () => answered.length === 1);
    assert.deepEqual(answered, [['1', 'no daemon came back']]);
    waiting.failAll('gone');
    assert.deepEqual(answered[1], ['2', 'gone']);
    assert.equal(answered.length, 2);
    assert.equal(waiting.length, 0);
  },
);
