import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messageOf } from './message-of.js';

test("an Error's message, anything else as String() says it", { timeout: 5000 }, () => {
  assert.equal(messageOf(new TypeError('bad input')), 'bad input');
  assert.equal(messageOf('plain text'), 'plain text');
  assert.equal(messageOf(42), '42');
  assert.equal(messageOf(undefined), 'undefined');
  assert.equal(messageOf(null), 'null');
});
