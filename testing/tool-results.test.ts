import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textOf } from './tool-results.js';

test("the first content item's text; '' for anything else", { timeout: 5000 }, () => {
  const texts = [
    { type: 'text', text: 'one' },
    { type: 'text', text: 'two' },
  ];
  assert.equal(textOf({ content: texts }), 'one');
  assert.equal(textOf({ content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }), '');
  assert.equal(textOf({ content: [] }), '');
  assert.equal(textOf({ content: [null] }), '');
  assert.equal(textOf({}), '');
  assert.equal(textOf(undefined), '');
});
