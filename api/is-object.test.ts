import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isObject } from './is-object.js';

test('an object that is not null and not an array', { timeout: 5000 }, () => {
  assert.equal(isObject({}), true);
  assert.equal(isObject({ a: 1 }), true);
  assert.equal(isObject(Object.create(null)), true);
  for (const no of [null, undefined, [], [1], 'x', 1, true]) assert.equal(isObject(no), false);
});
