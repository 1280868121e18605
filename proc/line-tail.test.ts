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
