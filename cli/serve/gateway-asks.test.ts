import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayAsks } from './gateway-asks.js';

test("the first gateway's ids pass as they are; a later one's are renamed", () => {
  const asks = new GatewayAsks();
  assert.equal(asks.add(1, '7'), '7');
  const renamed = asks.add(2, '7');
  assert.equal(renamed, JSON.stringify('mcpctl-2-1'));
  assert.deepEqual(asks.answered(renamed), { gen: 2, id: '7' });
  assert.equal(asks.answered(renamed), undefined, 'an answer is taken once');
  assert.deepEqual(asks.answered('7'), { gen: 1, id: '7' });
});

test('a cancelled request is found under the id the agent knows, for its own gateway only', () => {
  const asks = new GatewayAsks();
  const visible = asks.add(3, '"a"');
  assert.equal(asks.cancelled(2, '"a"'), undefined);
  assert.equal(asks.cancelled(3, undefined), undefined);
  assert.equal(asks.cancelled(3, '"a"'), visible);
  assert.equal(asks.answered(visible), undefined);
});
