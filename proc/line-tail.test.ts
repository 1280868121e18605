import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineTail } from './line-tail.js';

test('joins lines split across chunks and strips \\r', { timeout: 1000 }, () => {
  const tail = new LineTail(10);
  tail.push('hel');
  tail.push('lo\r\nwor');
  assert.deepEqual(tail.lines(), ['hello', 'wor']);
  tail.push('ld\n');
  assert.deepEqual(tail.lines(), ['hello', 'world']);
});

test('keeps only the last N lines, each bounded in length', { timeout: 1000 }, () => {
  const tail = new LineTail(3, 5);
  tail.push('1\n2\n3\n4\n');
  assert.deepEqual(tail.lines(), ['2', '3', '4']);
  tail.push('abcdefghij\n');
  assert.deepEqual(tail.lines(), ['3', '4', 'abcde…']);
  tail.push('x'.repeat(12));
  tail.flush();
  assert.equal(tail.lines().length, 3);
  assert.equal(tail.lines()[2], 'xxxxx…');
});

test('note() ends a pending partial line first', { timeout: 1000 }, () => {
  const tail = new LineTail();
  tail.push('partial');
  tail.note('[mcpctl] something');
  assert.deepEqual(tail.lines(), ['partial', '[mcpctl] something']);
});

test('since(seq): each whole line once, with what was dropped meanwhile', { timeout: 1000 }, () => {
  const tail = new LineTail(3);
  assert.deepEqual(tail.since(0), { lines: [], skipped: 0, next: 0 });
  tail.push('a\nb\npart');
  const first = tail.since(0);
  // The partial line waits until it ends.
  assert.deepEqual(first, { lines: ['a', 'b'], skipped: 0, next: 2 });
  tail.push('ial\n');
  assert.deepEqual(tail.since(first.next), { lines: ['partial'], skipped: 0, next: 3 });
  tail.push('1\n2\n3\n4\n');
  // 3..6 were added; 3 and 4 fell out of the 3 kept.
  assert.deepEqual(tail.since(3), { lines: ['2', '3', '4'], skipped: 1, next: 7 });
  assert.deepEqual(tail.since(7), { lines: [], skipped: 0, next: 7 });
  tail.push('end');
  tail.flush();
  assert.deepEqual(tail.since(7), { lines: ['end'], skipped: 0, next: 8 });
});
