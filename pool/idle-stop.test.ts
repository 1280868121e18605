/**
 * The pool's idle stop (pool.ts, issue #34): a held, ready connection with nothing to do for
 * its idle time is removed and closed and its holders hear `idle`; one with a request in
 * flight or a subscription is kept; the holders' idle times combine (0 wins, else the longest).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../testing/until.js';
import {
  ConnectionPool,
  type ConnectionActivity,
  type LostCause,
  type PooledConnection,
  type PoolHolder,
  type PoolTicket,
} from './pool.js';

const T = { timeout: 10_000 };

interface Ticket extends PoolTicket {
  readonly idleMs: number;
}

class Connection implements PooledConnection<Ticket> {
  readonly pid = 1;
  closed = false;
  inFlight = 0;
  subscriptions = 0;
  lastActiveAt = Date.now();
  open(): Promise<void> {
    return Promise.resolve();
  }
  cancel(): void {}
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
  lease(): object {
    return {};
  }
  activity(): ConnectionActivity {
    return {
      inFlight: this.inFlight,
      subscriptions: this.subscriptions,
      lastActiveAt: this.lastActiveAt,
    };
  }
  stats(): object {
    return {};
  }
}

class Holder implements PoolHolder {
  readonly lost: (LostCause | undefined)[] = [];
  constructor(readonly sessionId: string) {}
  onLost(_reason: string, cause?: LostCause): void {
    this.lost.push(cause);
  }
}

function poolOf() {
  const made = new Map<string, Connection>();
  const pool = new ConnectionPool<Ticket, Holder, Connection>({
    keyOf: (t) => t.connectionId,
    make: (t) => {
      const c = new Connection();
      made.set(t.connectionId, c);
      return c;
    },
    idleStopMs: (t) => t.idleMs,
    drainDelayMs: 0,
    now: Date.now,
    warn: (m) => assert.fail(m),
  });
  const ticket = (id: string, sessionId: string, idleMs: number): Ticket => ({
    name: id,
    connectionId: id,
    sessionId,
    idleMs,
  });
  const live = (id: string) => pool.stats().some((s) => s.key === id && s.state === 'ready');
  return { pool, made, ticket, live };
}

test(
  'a connection with nothing to do is stopped after its idle time; its holders hear idle',
  T,
  async () => {
    const { pool, made, ticket, live } = poolOf();
    const a = new Holder('s1');
    const b = new Holder('s2');
    await pool.acquire(ticket('x', 's1', 30), a);
    await pool.acquire(ticket('x', 's2', 30), b);
    await until('x to stop', () => !live('x') && made.get('x')?.closed === true);
    await until('both holders told', () => a.lost.length === 1 && b.lost.length === 1);
    assert.deepEqual([a.lost, b.lost], [['idle'], ['idle']]);
    await pool.close();
  },
);

test('a request in flight or a subscription keeps it; what idles beside it stops', T, async () => {
  const { pool, made, ticket, live } = poolOf();
  const h = new Holder('s1');
  await pool.acquire(ticket('busy', 's1', 30), h);
  await pool.acquire(ticket('subscribed', 's1', 30), h);
  made.get('busy')!.inFlight = 1;
  made.get('subscribed')!.subscriptions = 1;
  // Acquired after the two: once it idled out, their idle time has passed as well.
  await pool.acquire(ticket('quiet', 's1', 30), h);
  await until('quiet to stop', () => !live('quiet'));
  assert.ok(live('busy'), 'a request in flight keeps it');
  assert.ok(live('subscribed'), 'a subscription keeps it');
  // Answered now: it idles out its full time from the answer, then stops.
  const busy = made.get('busy')!;
  busy.inFlight = 0;
  busy.lastActiveAt = Date.now();
  await until('busy to stop once answered', () => !live('busy'));
  assert.ok(live('subscribed'));
  await pool.close();
});

test(
  'of several holders 0 wins (kept while held); when that holder lets go, the other idle time applies',
  T,
  async () => {
    const { pool, ticket, live } = poolOf();
    const keep = new Holder('keep');
    const idle = new Holder('idle');
    await pool.acquire(ticket('x', 'keep', 0), keep);
    await pool.acquire(ticket('x', 'idle', 30), idle);
    await pool.acquire(ticket('marker', 'idle', 30), idle);
    await until('marker to stop', () => !live('marker'));
    assert.ok(live('x'), 'a holder that asks 0 keeps it');
    assert.equal(pool.stats().find((s) => s.key === 'x')?.idleStopMs, undefined);
    pool.release('x', 'keep', { reason: 'config' });
    await until('x to stop after the keeper left', () => !live('x'));
    assert.deepEqual(idle.lost, ['idle', 'idle']);
    assert.deepEqual(keep.lost, []);
    await pool.close();
  },
);

test(
  'an idle stop removes the key at once: the next acquire opens a new connection',
  T,
  async () => {
    const { pool, made, ticket, live } = poolOf();
    const h = new Holder('s1');
    await pool.acquire(ticket('x', 's1', 20), h);
    const first = made.get('x');
    await until('x to stop', () => !live('x'));
    await pool.acquire(ticket('x', 's1', 20), h);
    assert.notEqual(made.get('x'), first, 'a fresh connection');
    assert.equal(first?.closed, true);
    await pool.close();
  },
);
