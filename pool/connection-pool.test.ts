/**
 * The lifecycle of pool.ts with a connection type that is not MCP (what the language servers'
 * connections will be): single-flight, failure, loss, drain and close, seen from the type.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ConnectionPool,
  type ConnectionHost,
  type LostCause,
  type PooledConnection,
  type PoolHolder,
  type PoolTicket,
} from './pool.js';

const T = { timeout: 10_000 };

interface Settle {
  resolve(): void;
  reject(error: Error): void;
}

/** A connection whose open the test settles, and which records what the pool did to it. */
class FakeConnection implements PooledConnection {
  readonly pid = 4242;
  readonly events: string[] = [];
  readonly #opened: Promise<void>;
  readonly #settle: Settle;

  constructor(
    readonly key: string,
    readonly host: ConnectionHost<Holder>,
  ) {
    let settle: Settle | undefined;
    this.#opened = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    this.#settle = settle!;
  }

  open(): Promise<void> {
    this.events.push('open');
    return this.#opened;
  }
  succeed(): void {
    this.#settle.resolve();
  }
  fail(error: Error): void {
    this.#settle.reject(error);
  }
  ready(): void {
    this.events.push('ready');
  }
  hold(sessionId: string): void {
    this.events.push(`hold ${sessionId}`);
  }
  unhold(sessionId: string): void {
    this.events.push(`unhold ${sessionId}`);
  }
  cancel(reason: Error): void {
    this.events.push(`cancel: ${reason.message}`);
    this.#settle.reject(reason);
  }
  /** Ends a turn of the event loop later, like a process that takes its time to go. */
  close(): Promise<void> {
    return new Promise((resolve) =>
      setImmediate(() => {
        this.events.push('close');
        resolve();
      }),
    );
  }
  lease(startedAt: Date): { key: string; startedAt: Date } {
    return { key: this.key, startedAt };
  }
  stats(): { documents: number } {
    return { documents: 3 };
  }
}

class Holder implements PoolHolder {
  /** Each loss it heard, and whether its connection was closed by then. */
  readonly lost: Array<[string, LostCause | undefined, boolean]> = [];
  constructor(
    readonly sessionId: string,
    private readonly closed: () => boolean = () => false,
  ) {}
  onLost(reason: string, cause?: LostCause): void {
    this.lost.push([reason, cause, this.closed()]);
  }
}

function rig(drainDelayMs = 0) {
  const made: FakeConnection[] = [];
  const pool = new ConnectionPool<PoolTicket, Holder, FakeConnection>({
    keyOf: (ticket) => ticket.connectionId,
    make: (_ticket, key, host) => {
      const c = new FakeConnection(key, host);
      made.push(c);
      return c;
    },
    drainDelayMs,
    now: () => 1000,
    warn: () => undefined,
  });
  const ticket = (sessionId: string): PoolTicket => ({
    name: 'ls',
    connectionId: 'ls::1',
    sessionId,
  });
  return { pool, made, ticket };
}

test('concurrent acquires make and open one connection; both get its lease', T, async () => {
  const { pool, made, ticket } = rig();
  try {
    const a = pool.acquire(ticket('a'), new Holder('a'));
    const b = pool.acquire(ticket('b'), new Holder('b'));
    assert.equal(made.length, 1);
    made[0]?.succeed();
    const [la, lb] = await Promise.all([a, b]);
    assert.equal(la, lb, 'one lease for the waiters of one open');
    assert.deepEqual(la, { key: 'ls::1', startedAt: new Date(1000) });
    assert.deepEqual(made[0]?.events, ['open', 'hold a', 'hold b', 'ready']);
    assert.deepEqual(pool.stats(), [
      {
        key: 'ls::1',
        connectionId: 'ls::1',
        name: 'ls',
        state: 'ready',
        refs: ['a', 'b'],
        pid: 4242,
        createdAt: new Date(1000),
        startedAt: new Date(1000),
        drainEndsAt: undefined,
        documents: 3,
      },
    ]);
  } finally {
    await pool.close();
  }
});

test('a failed open is closed before every waiter hears the same error', T, async () => {
  const { pool, made, ticket } = rig();
  const a = pool.acquire(ticket('a'), new Holder('a'));
  const b = pool.acquire(ticket('b'), new Holder('b'));
  const boom = new Error('no such language server');
  // What each waiter saw when it heard: the error, and whether the connection was closed.
  const heard = (p: Promise<unknown>) =>
    p.then(
      () => 'resolved',
      (err: unknown) => [err, made[0]?.events.includes('close')],
    );
  const outcomes = Promise.all([heard(a), heard(b)]);
  made[0]?.fail(boom);
  assert.deepEqual(await outcomes, [
    [boom, true],
    [boom, true],
  ]);
  assert.deepEqual(pool.stats(), []);
  await pool.close();
});

test('a loss removes the entry, closes it, then tells every holder once', T, async () => {
  const { pool, made, ticket } = rig();
  const ha = new Holder('a', () => made[0]?.events.includes('close') ?? false);
  const acquired = pool.acquire(ticket('a'), ha);
  made[0]?.succeed();
  await acquired;
  made[0]?.host.lost('server "ls": exited with code 1', 'failed');
  made[0]?.host.lost('server "ls": again', 'failed');
  assert.deepEqual(pool.stats(), [], 'removed at once');
  assert.equal(made[0]?.host.live(), false);
  await pool.close();
  assert.deepEqual(ha.lost, [['server "ls": exited with code 1', 'failed', true]]);
});

test('a config release cancels an open nobody wants; a session release drains', T, async () => {
  const { pool, made, ticket } = rig(60_000);
  try {
    const opening = pool.acquire(ticket('a'), new Holder('a'));
    pool.release('ls::1', 'a', { reason: 'config' });
    await assert.rejects(opening, /released by session a before the connection was ready/);
    assert.ok(made[0]?.events.includes('cancel: released: no session wants it any more'));

    const again = pool.acquire(ticket('b'), new Holder('b'));
    assert.equal(made.length, 2, 'a fresh connection, not the one going away');
    made[1]?.succeed();
    await again;
    pool.release('ls::1', 'b', { reason: 'sessionClosed' });
    assert.equal(pool.stats()[0]?.state, 'draining');
    assert.equal(pool.live('ls::1'), made[1], 'a draining connection is still served');
  } finally {
    await pool.close();
  }
  assert.deepEqual(made[1]?.events.slice(-1), ['close']);
});

test(
  "an aborted acquire lets go as the config does, never cancelling another session's wait",
  T,
  async () => {
    const { pool, made, ticket } = rig(60_000);
    try {
      const stopA = new AbortController();
      const a = pool.acquire(ticket('a'), new Holder('a'), { signal: stopA.signal });
      const b = pool.acquire(ticket('b'), new Holder('b'));
      stopA.abort(new Error('a: removed from the config'));
      await assert.rejects(a, /a: removed from the config/);
      assert.deepEqual(pool.stats()[0]?.refs, ['b'], "b's wait keeps the open going");
      assert.ok(!made[0]?.events.some((e) => e.startsWith('cancel')), 'not cancelled');
      made[0]?.succeed();
      const lb = await b;
      assert.deepEqual(lb, { key: 'ls::1', startedAt: new Date(1000) });

      // The last one waiting aborts: the open is cancelled and no entry is left.
      pool.release('ls::1', 'b', { reason: 'config' });
      const stopC = new AbortController();
      const c = pool.acquire(ticket('c'), new Holder('c'), { signal: stopC.signal });
      assert.equal(made.length, 2);
      stopC.abort(new Error('c: not admitted any more'));
      await assert.rejects(c, /c: not admitted any more/);
      assert.ok(made[1]?.events.includes('cancel: released: no session wants it any more'));
      assert.deepEqual(pool.stats(), []);

      // Aborted before it asks: nothing is made. Aborted after its lease: nothing changes.
      await assert.rejects(
        pool.acquire(ticket('d'), new Holder('d'), { signal: stopC.signal }),
        /c: not admitted any more/,
      );
      assert.equal(made.length, 2);
      const stopE = new AbortController();
      const e = pool.acquire(ticket('e'), new Holder('e'), { signal: stopE.signal });
      made[2]?.succeed();
      await e;
      stopE.abort(new Error('too late'));
      assert.deepEqual(pool.stats()[0]?.refs, ['e']);
      assert.equal(pool.stats()[0]?.state, 'ready');
    } finally {
      await pool.close();
    }
  },
);
