import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SharedSettleWait } from './settle-wait.js';

const T = { timeout: 5000 };
const FAKE = { apis: ['setTimeout', 'Date'] } as const;

/** A session's idleness the test controls: `settle()` ends the current busy spell. */
function session() {
  let calls = 0;
  let settle: () => void = () => undefined;
  let idle = new Promise<void>((resolve) => (settle = resolve));
  return {
    idle: () => {
      calls += 1;
      return idle;
    },
    calls: () => calls,
    settle: () => settle(),
    busyAgain: () => {
      idle = new Promise<void>((resolve) => (settle = resolve));
    },
  };
}

/** Whether `p` has resolved, once pending callbacks ran. */
async function done(p: Promise<void>): Promise<boolean> {
  let resolved = false;
  void p.then(() => (resolved = true));
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
  return resolved;
}

test('a busy spell is waited for once: after its deadline, waits return at once', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const s = session();
  const w = new SharedSettleWait(s.idle);
  const first = w.wait(5000);
  t.mock.timers.tick(4999);
  assert.equal(await done(first), false, 'bounded, not shorter');
  t.mock.timers.tick(1);
  assert.equal(await done(first), true, 'and not longer');
  assert.equal(await done(w.wait(5000)), true, 'the same spell is not waited for again');
  assert.equal(await done(w.wait(5000)), true);
  assert.equal(s.calls(), 1);
});

test(
  'waits during a spell are measured from its first wait, with their own bound',
  T,
  async (t) => {
    t.mock.timers.enable(FAKE);
    const s = session();
    const w = new SharedSettleWait(s.idle);
    const first = w.wait(5000);
    t.mock.timers.tick(3000);
    const joined = w.wait(5000);
    assert.equal(await done(w.wait(2000)), true, 'a bound of 2 s from the first wait has passed');
    t.mock.timers.tick(1999);
    assert.equal(await done(joined), false);
    t.mock.timers.tick(1);
    assert.equal(await done(first), true);
    assert.equal(await done(joined), true, 'the spell’s deadline, not 5 s after it joined');
  },
);

test('idle ends every wait of the spell, and a new spell is waited for again', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const s = session();
  const w = new SharedSettleWait(s.idle);
  const a = w.wait(5000);
  const b = w.wait(5000);
  s.settle();
  assert.equal(await done(a), true);
  assert.equal(await done(b), true);
  // Busy again (a config edit): the next wait waits, bounded, once more.
  s.busyAgain();
  const c = w.wait(5000);
  assert.equal(await done(c), false);
  t.mock.timers.tick(5000);
  assert.equal(await done(c), true);
  assert.equal(await done(w.wait(5000)), true);
  assert.equal(s.calls(), 2);
});

test('a wait bounded by 0 waits for nothing and does not use up the spell', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const s = session();
  const w = new SharedSettleWait(s.idle);
  assert.equal(await done(w.wait(0)), true);
  const a = w.wait(5000);
  assert.equal(await done(a), false);
  t.mock.timers.tick(5000);
  assert.equal(await done(a), true);
});

test('a failed wait for idle counts as idle', T, async (t) => {
  t.mock.timers.enable(FAKE);
  const w = new SharedSettleWait(() => Promise.reject(new Error('closed')));
  assert.equal(await done(w.wait(5000)), true);
});
