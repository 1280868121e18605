import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  InFlightCalls,
  MAX_RESEND_BYTES,
  forgetLine,
  neverRan,
  type AgentCall,
} from './in-flight.js';

const call = (method = 'tools/call'): AgentCall => ({ method, task: false });
const line = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n');

test('a sent call keeps its line while it may be sent again; settling lets go of it', () => {
  const calls = new InFlightCalls();
  const c = call();
  const sending = calls.sent('1', c, 1, line);
  assert.equal(sending.state, 'writing');
  assert.equal(c.line, line);
  assert.equal(calls.settle('1'), c);
  assert.equal(c.line, undefined);
  assert.equal(calls.settle('1'), undefined);
});

test("initialize's line is always kept; a line past MAX_RESEND_BYTES never is", () => {
  const calls = new InFlightCalls();
  const init = call('initialize');
  init.line = line;
  calls.sent('1', init, 1, line);
  forgetLine(init);
  assert.equal(init.line, line);
  const big = call();
  calls.sent('2', big, 1, Buffer.alloc(MAX_RESEND_BYTES + 1));
  assert.equal(big.line, undefined);
  assert.deepEqual([...calls.takeAll().keys()], ['1', '2']);
  assert.equal(calls.get('1'), undefined);
});

test('only an unsent line, or the last line written before a reset, provably never ran', () => {
  const calls = new InFlightCalls();
  const c = call();
  const sending = calls.sent('1', c, 2, line);
  sending.state = 'unsent';
  assert.equal(neverRan({ gen: 2 }, c), true);
  assert.equal(neverRan({ gen: 3 }, c), false, 'sent to another gateway');
  sending.state = 'written';
  assert.equal(neverRan({ gen: 2, last: c }, c), false, 'a plain end proves nothing');
  assert.equal(neverRan({ gen: 2, last: call(), reset: true }, c), false, 'not the last line');
  assert.equal(neverRan({ gen: 2, last: c, reset: true }, c), true);
  sending.state = 'writing';
  assert.equal(neverRan({ gen: 2, last: c, reset: true }, c), false, 'the write did not complete');
});
