import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { until } from '../testing/until.js';
import { createConnector } from './connector.js';
import { ConnectError, DiscoveryTimeoutError, PoolError } from './errors.js';
import { processStartTime } from '../proc/index.js';
import { createPool } from './mcp-pool.js';
import { callTool, getPrompt } from './testing/calls.js';
import { fixtureConfig, readPid, tempDir } from './testing/fixtures.js';
import { RecordingHolder } from './testing/holders.js';
import { testTicket } from './testing/tickets.js';
import type { Connector, Lease } from './types.js';
import { pidAlive } from '../proc/index.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 30_000 };
const GRACE = 300;

function echoed(result: { content: unknown[] }): {
  tool: string;
  args: Record<string, unknown>;
  pid: number;
  cwd: string;
  env: Record<string, string | null>;
} {
  assert.equal((result.content[0] as { type?: string } | undefined)?.type, 'text');
  return JSON.parse(textOf(result)) as ReturnType<typeof echoed>;
}

test(
  'two sessions share one connection; it lives while either holds it and closes after the drain',
  T,
  async () => {
    const pool = createPool({ drainDelayMs: 400, graceMs: GRACE });
    try {
      const config = fixtureConfig(['--tools=echo']);
      const a = new RecordingHolder('a');
      const b = new RecordingHolder('b');
      const la = await pool.acquire(testTicket('fs', config, { sessionId: 'a' }), a);
      const lb = await pool.acquire(testTicket('fs', config, { sessionId: 'b' }), b);
      assert.equal(la.key, lb.key);
      assert.ok(la.pid !== undefined && la.pid > 0);
      assert.equal(la.pid, lb.pid);
      const pid = la.pid;
      const [entry] = pool.stats();
      assert.equal(pool.stats().length, 1);
      assert.deepEqual(entry?.refs, ['a', 'b']);
      assert.equal(entry?.state, 'ready');
      assert.deepEqual(
        la.tools().map((t) => t.name),
        ['echo'],
      );

      pool.release(la.key, 'a', { reason: 'sessionClosed' });
      assert.deepEqual(pool.stats()[0]?.refs, ['b']);
      assert.equal(pool.stats()[0]?.state, 'ready');
      assert.ok(pidAlive(pid), 'still alive while b holds it');
      const r = await callTool(pool, lb.key, 'echo', { x: 1 });
      assert.equal(echoed(r).pid, pid);

      pool.release(lb.key, 'b', { reason: 'sessionClosed' });
      assert.equal(pool.stats()[0]?.state, 'draining');
      assert.ok(pidAlive(pid), 'alive during the drain');
      await until('entry removed after the drain', () => pool.stats().length === 0, {
        timeoutMs: 5000,
      });
      await until('process gone after the drain', () => !pidAlive(pid), { timeoutMs: 5000 });
      assert.equal(a.lost.length + b.lost.length, 0, 'a drain is not a loss');
    } finally {
      await pool.close();
    }
  },
);

test('a re-acquire during the drain cancels it and keeps the same pid', T, async () => {
  const pool = createPool({ drainDelayMs: 600, graceMs: GRACE });
  try {
    const config = fixtureConfig();
    const first = await pool.acquire(testTicket('fs', config), new RecordingHolder('s1'));
    pool.release(first.key, 's1', { reason: 'sessionClosed' });
    assert.equal(pool.stats()[0]?.state, 'draining');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await pool.acquire(
      testTicket('fs', config, { sessionId: 's2' }),
      new RecordingHolder('s2'),
    );
    assert.equal(again.pid, first.pid);
    assert.equal(pool.stats()[0]?.state, 'ready');
    // Well past the original drain: still the same live process.
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.equal(pool.stats().length, 1);
    assert.equal(pool.stats()[0]?.pid, first.pid);
    assert.ok(pidAlive(first.pid ?? -1));
  } finally {
    await pool.close();
  }
});

test('10 concurrent acquires start one process', T, async () => {
  const real = createConnector({ graceMs: GRACE });
  let spawns = 0;
  const counting: Connector = (ticket, signal) => {
    spawns += 1;
    return real(ticket, signal);
  };
  const pool = createPool({ connector: counting, drainDelayMs: 0 });
  try {
    const config = fixtureConfig();
    const leases = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        pool.acquire(
          testTicket('fs', config, { sessionId: `s${i}` }),
          new RecordingHolder(`s${i}`),
        ),
      ),
    );
    assert.equal(spawns, 1);
    assert.equal(new Set(leases.map((l) => l.pid)).size, 1);
    assert.equal(pool.stats().length, 1);
    assert.equal(pool.stats()[0]?.refs.length, 10);
  } finally {
    await pool.close();
  }
});

test('a different env is a different connection', T, async () => {
  const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
  try {
    const one = await pool.acquire(
      testTicket('fs', fixtureConfig([], { env: { MODE: 'one' } })),
      new RecordingHolder('s1'),
    );
    const two = await pool.acquire(
      testTicket('fs', fixtureConfig([], { env: { MODE: 'two' } })),
      new RecordingHolder('s1'),
    );
    assert.notEqual(one.key, two.key);
    assert.notEqual(one.pid, two.pid);
    assert.equal(pool.stats().length, 2);
  } finally {
    await pool.close();
  }
});

test('shared: false gives each session its own process', T, async () => {
  const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
  try {
    const config = fixtureConfig([], { shared: false });
    const a = await pool.acquire(
      testTicket('db', config, { sessionId: 'a' }),
      new RecordingHolder('a'),
    );
    const b = await pool.acquire(
      testTicket('db', config, { sessionId: 'b' }),
      new RecordingHolder('b'),
    );
    assert.notEqual(a.pid, b.pid);
    assert.equal(a.connectionId, b.connectionId);
    assert.equal(a.key, `${a.connectionId}@a`);
    assert.equal(b.key, `${b.connectionId}@b`);
    assert.deepEqual(
      pool.stats().map((s) => s.refs),
      [['a'], ['b']],
    );
  } finally {
    await pool.close();
  }
});

test('a crash after connect calls onLost once and removes the entry', T, async () => {
  const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
  try {
    const h1 = new RecordingHolder('a');
    const h2 = new RecordingHolder('b');
    const config = fixtureConfig([
      '--tools=echo,crash',
      '--exit-code=7',
      '--stderr=about to be unwell',
    ]);
    const lease = await pool.acquire(testTicket('crashy', config, { sessionId: 'a' }), h1);
    await pool.acquire(testTicket('crashy', config, { sessionId: 'b' }), h2);
    const pid = lease.pid ?? -1;
    await callTool(pool, lease.key, 'crash', {});
    const reason = await h1.nextLost();
    await h2.nextLost();
    assert.match(reason, /server "crashy"/);
    assert.match(reason, /exited with code 7/);
    assert.equal(pool.stats().length, 0);
    assert.ok(!pidAlive(pid), 'process gone when onLost is called');
    assert.ok(lease.stderrTail().includes('about to be unwell'), 'tail readable after the loss');
    await assert.rejects(callTool(pool, lease.key, 'echo', {}), PoolError);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(h1.lost.length, 1, 'onLost once');
    assert.equal(h2.lost.length, 1, 'onLost once');
    // The next acquire starts a fresh process.
    const again = await pool.acquire(testTicket('crashy', config, { sessionId: 'a' }), h1);
    assert.notEqual(again.pid, pid);
  } finally {
    await pool.close();
  }
});

test(
  'a server that hangs before initialize times out naming the server, and is killed',
  T,
  async () => {
    const dir = tempDir();
    const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
    try {
      const pidFile = dir.file('pid');
      const config = fixtureConfig(['--hang-before-initialize', `--pid-file=${pidFile}`], {
        discoveryTimeoutMs: 800,
      });
      const started = Date.now();
      const err = await pool.acquire(testTicket('stuck', config), new RecordingHolder('s1')).then(
        () => assert.fail('acquire should fail'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof DiscoveryTimeoutError, String(err));
      assert.equal(err.server, 'stuck');
      assert.equal(err.phase, 'initialize');
      assert.match(err.message, /server "stuck": timed out after 800 ms during initialize/);
      assert.ok(Date.now() - started >= 800);
      const pid = await readPid(pidFile);
      assert.ok(!pidAlive(pid), 'the hung process is gone when acquire rejects');
      assert.equal(pool.stats().length, 0);
    } finally {
      await pool.close();
      dir.remove();
    }
  },
);

test(
  'a failed connect rejects every waiter with the same error and leaves no entry',
  T,
  async () => {
    const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
    try {
      const config = fixtureConfig(['--exit-at-start', '--stderr=fatal: no API key|hint: set KEY']);
      const results = await Promise.allSettled(
        ['a', 'b', 'c'].map((s) =>
          pool.acquire(testTicket('bad', config, { sessionId: s }), new RecordingHolder(s)),
        ),
      );
      const errors = results.map((r) => {
        assert.equal(r.status, 'rejected');
        const reason: unknown = r.reason;
        return reason;
      });
      assert.ok(errors[0] instanceof ConnectError);
      assert.equal(errors[1], errors[0]);
      assert.equal(errors[2], errors[0]);
      assert.match(errors[0].message, /server "bad": process exited with code 3 during initialize/);
      assert.match(errors[0].message, /fatal: no API key/);
      assert.deepEqual(pool.stats(), []);
    } finally {
      await pool.close();
    }
  },
);

test('tools/list_changed re-lists and notifies holders', T, async () => {
  const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
  try {
    const holder = new RecordingHolder('s1');
    const lease = await pool.acquire(
      testTicket('dyn', fixtureConfig(['--tools=echo,add_tool'])),
      holder,
    );
    assert.deepEqual(
      lease
        .tools()
        .map((t) => t.name)
        .sort(),
      ['add_tool', 'echo'],
    );
    const changed = holder.nextListChanged();
    await callTool(pool, lease.key, 'add_tool', { name: 'fresh' });
    await changed;
    assert.deepEqual(
      lease
        .tools()
        .map((t) => t.name)
        .sort(),
      ['add_tool', 'echo', 'fresh'],
    );
    assert.equal(pool.stats()[0]?.tools, 3);
    const r = await callTool(pool, lease.key, 'fresh', { y: 2 });
    assert.equal(echoed(r).tool, 'fresh');
  } finally {
    await pool.close();
  }
});

test(
  'a tool added by the server on its own (--add-tool-after) shows up in the lease',
  T,
  async () => {
    const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
    try {
      const holder = new RecordingHolder('s1');
      const config = fixtureConfig(['--add-tool-after=300', '--add-tool-name=late']);
      const lease = await pool.acquire(testTicket('timer', config), holder);
      await until('the late tool is listed', () => lease.tools().some((t) => t.name === 'late'), {
        timeoutMs: 5000,
      });
    } finally {
      await pool.close();
    }
  },
);

test('prompts are listed when declared, and getPrompt works', T, async () => {
  const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
  try {
    const withPrompt = await pool.acquire(
      testTicket('p', fixtureConfig(['--prompt=greet'])),
      new RecordingHolder('s1'),
    );
    assert.deepEqual(
      withPrompt.prompts().map((p) => p.name),
      ['greet'],
    );
    const got = await getPrompt(pool, withPrompt.key, 'greet', { topic: 'pools' });
    const content = got.messages[0]?.content as { text?: string } | undefined;
    assert.equal(content?.text, 'prompt greet about pools');
    const without = await pool.acquire(
      testTicket('np', fixtureConfig()),
      new RecordingHolder('s1'),
    );
    assert.deepEqual(without.prompts(), []);
    const stats = pool.stats().find((s) => s.key === withPrompt.key);
    assert.equal(stats?.prompts, 1);
  } finally {
    await pool.close();
  }
});

test('callTool honours its timeout, the config timeout and an abort signal', T, async () => {
  const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
  try {
    const lease = await pool.acquire(
      testTicket('slow', fixtureConfig(['--tools=sleep'])),
      new RecordingHolder('s1'),
    );
    await assert.rejects(
      callTool(pool, lease.key, 'sleep', { ms: 3000 }, { timeout: 200 }),
      /timed out/i,
    );
    const ac = new AbortController();
    const call = callTool(pool, lease.key, 'sleep', { ms: 3000 }, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('user pressed escape')), 100);
    await assert.rejects(call, /user pressed escape/);
    const fast = await callTool(pool, lease.key, 'sleep', { ms: 10 });
    assert.equal(echoed(fast).tool, 'sleep');

    const configured = await pool.acquire(
      testTicket('slow2', fixtureConfig(['--tools=sleep'], { timeout: 200 })),
      new RecordingHolder('s1'),
    );
    const started = Date.now();
    await assert.rejects(callTool(pool, configured.key, 'sleep', { ms: 3000 }), /timed out/i);
    assert.ok(Date.now() - started < 2500, 'the configured timeout applied');
  } finally {
    await pool.close();
  }
});

test(
  'stdio servers get the daemon env plus config env, and run in cwd or the workspace',
  T,
  async () => {
    const dir = tempDir();
    const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
    try {
      const config = fixtureConfig(['--echo-env=PATH,MCPCTL_FIXTURE_VALUE'], {
        env: { MCPCTL_FIXTURE_VALUE: 'from-config' },
      });
      const lease = await pool.acquire(
        testTicket('envy', config, { cwd: dir.path }),
        new RecordingHolder('s1'),
      );
      const out = echoed(await callTool(pool, lease.key, 'echo', {}));
      assert.equal(out.env.MCPCTL_FIXTURE_VALUE, 'from-config');
      assert.equal(out.env.PATH, process.env.PATH ?? null);
      assert.equal(out.cwd, dir.path);
      const own = await pool.acquire(
        testTicket('envy2', { ...config, cwd: '/' }, { cwd: dir.path }),
        new RecordingHolder('s1'),
      );
      assert.equal(echoed(await callTool(pool, own.key, 'echo', {})).cwd, '/');
    } finally {
      await pool.close();
      dir.remove();
    }
  },
);

test('every process is in the state file while it runs, and leaves it when gone', T, async () => {
  const dir = tempDir();
  const stateFile = dir.file('state/processes.json');
  const pool = createPool({ drainDelayMs: 0, graceMs: GRACE, stateFile });
  try {
    const lease = await pool.acquire(testTicket('rec', fixtureConfig()), new RecordingHolder('s1'));
    const pid = lease.pid ?? -1;
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as {
      processes: Array<{ pid: number; pgid: number; startTime: string; connectionId: string }>;
    };
    assert.equal(state.processes.length, 1);
    assert.equal(state.processes[0]?.pid, pid);
    assert.equal(state.processes[0]?.pgid, pid);
    assert.equal(state.processes[0]?.connectionId, lease.connectionId);
    assert.equal(state.processes[0]?.startTime, processStartTime(pid));
    pool.release(lease.key, 's1', { reason: 'config' });
    await until('record removed when the process is gone', () => !existsSync(stateFile), {
      timeoutMs: 5000,
    });
    assert.ok(!pidAlive(pid));
  } finally {
    await pool.close();
    dir.remove();
  }
});

test(
  'close() ends ready, draining and still-connecting connections, grandchildren included',
  T,
  async () => {
    const dir = tempDir();
    const pool = createPool({ drainDelayMs: 60_000, graceMs: GRACE });
    try {
      const gcFile = dir.file('grandchild');
      const ready = await pool.acquire(
        testTicket('gc', fixtureConfig([`--grandchild-pid-file=${gcFile}`])),
        new RecordingHolder('s1'),
      );
      const draining = await pool.acquire(
        testTicket('dr', fixtureConfig()),
        new RecordingHolder('s1'),
      );
      pool.release(draining.key, 's1', { reason: 'sessionClosed' });
      const hangPid = dir.file('hang');
      const connecting = pool.acquire(
        testTicket('hang', fixtureConfig(['--hang-before-initialize', `--pid-file=${hangPid}`])),
        new RecordingHolder('s1'),
      );
      const connectingResult = connecting.then(
        () => 'resolved',
        (e: unknown) => e,
      );
      const grandchild = await readPid(gcFile);
      const hung = await readPid(hangPid);
      assert.deepEqual(
        pool
          .stats()
          .map((s) => s.state)
          .sort(),
        ['connecting', 'draining', 'ready'],
      );
      await pool.close();
      assert.ok(!pidAlive(ready.pid ?? -1));
      assert.ok(!pidAlive(draining.pid ?? -1));
      assert.ok(!pidAlive(hung));
      assert.throws(() => process.kill(grandchild, 0), { code: 'ESRCH' });
      const outcome = await connectingResult;
      assert.ok(outcome instanceof ConnectError, String(outcome));
      assert.match(outcome.message, /cancelled/);
      assert.deepEqual(pool.stats(), []);
      await assert.rejects(
        pool.acquire(testTicket('late', fixtureConfig()), new RecordingHolder('s1')),
        /closed/,
      );
    } finally {
      await pool.close();
      dir.remove();
    }
  },
);

test(
  'release while connecting rejects that waiter only; releaseSession releases everything of a session',
  T,
  async () => {
    const pool = createPool({ drainDelayMs: 0, graceMs: GRACE });
    try {
      const config = fixtureConfig();
      const ta = testTicket('x', config, { sessionId: 'a' });
      const tb = testTicket('x', config, { sessionId: 'b' });
      const pa = pool.acquire(ta, new RecordingHolder('a'));
      const pb = pool.acquire(tb, new RecordingHolder('b'));
      pool.release(ta.connectionId, 'a', { reason: 'config' });
      await assert.rejects(pa, /released by session a before the connection was ready/);
      const lb: Lease = await pb;
      assert.deepEqual(pool.stats()[0]?.refs, ['b']);

      const other = await pool.acquire(
        testTicket('y', fixtureConfig(['--tools=t1']), { sessionId: 'b' }),
        new RecordingHolder('b'),
      );
      assert.equal(pool.stats().length, 2);
      pool.releaseSession('b');
      await until('the entries removed', () => pool.stats().length === 0, { timeoutMs: 5000 });
      await until(
        'both processes gone',
        () => !pidAlive(lb.pid ?? -1) && !pidAlive(other.pid ?? -1),
        {
          timeoutMs: 5000,
        },
      );
    } finally {
      await pool.close();
    }
  },
);

test(
  'acquire refuses a ticket of another session or with a connectionId that is not its config',
  T,
  async () => {
    const pool = createPool({ drainDelayMs: 0 });
    try {
      const ticket = testTicket('fs', fixtureConfig(), { sessionId: 'a' });
      await assert.rejects(
        pool.acquire(ticket, new RecordingHolder('b')),
        /admitted for session a, not for b/,
      );
      const forged = { ...ticket, connectionId: 'fs::0000000000000000' } as typeof ticket;
      await assert.rejects(
        pool.acquire(forged, new RecordingHolder('a')),
        /does not match its config/,
      );
      assert.deepEqual(pool.stats(), []);
    } finally {
      await pool.close();
    }
  },
);

test(
  'a config release ends the connection at once when no other session holds it, whatever the drain delay',
  T,
  async () => {
    const pool = createPool({ drainDelayMs: 60_000, graceMs: GRACE });
    try {
      const config = fixtureConfig();
      const la = await pool.acquire(
        testTicket('fs', config, { sessionId: 'a' }),
        new RecordingHolder('a'),
      );
      await pool.acquire(testTicket('fs', config, { sessionId: 'b' }), new RecordingHolder('b'));
      const pid = la.pid ?? -1;
      pool.release(la.key, 'a', { reason: 'config' });
      assert.equal(pool.stats()[0]?.state, 'ready', "b's ref keeps it");
      assert.ok(pidAlive(pid));
      // A session that never held it cannot end it.
      pool.release(la.key, 'stranger', { reason: 'config' });
      assert.deepEqual(pool.stats()[0]?.refs, ['b']);
      pool.release(la.key, 'b', { reason: 'config' });
      assert.deepEqual(pool.stats(), [], 'no drain: gone from the pool at once');
      await until('its process to end', () => !pidAlive(pid), { timeoutMs: 5000 });
    } finally {
      await pool.close();
    }
  },
);

test('a config release cancels a connect nobody wants any more', T, async () => {
  const dir = tempDir();
  const pool = createPool({ drainDelayMs: 60_000, graceMs: GRACE });
  try {
    const pidFile = dir.file('hang');
    const ticket = testTicket(
      'hang',
      fixtureConfig(['--hang-before-initialize', `--pid-file=${pidFile}`]),
    );
    const acquiring = pool.acquire(ticket, new RecordingHolder('s1'));
    const pid = await readPid(pidFile);
    assert.equal(pool.stats()[0]?.state, 'connecting');
    pool.release(ticket.connectionId, 's1', { reason: 'config' });
    await assert.rejects(acquiring, /released by session s1 before the connection was ready/);
    assert.deepEqual(pool.stats(), []);
    await until('the half-started process to end', () => !pidAlive(pid), { timeoutMs: 5000 });
  } finally {
    await pool.close();
    dir.remove();
  }
});

test('stats say what each entry is, and when a drain ends', T, async () => {
  let clock = Date.parse('2030-01-01T00:00:00Z');
  const pool = createPool({ drainDelayMs: 60_000, graceMs: GRACE, now: () => clock });
  try {
    const lease = await pool.acquire(testTicket('fs', fixtureConfig()), new RecordingHolder('s1'));
    const [ready] = pool.stats();
    assert.equal(ready?.name, 'fs');
    assert.equal(ready?.pid, lease.pid);
    assert.equal(ready?.createdAt.getTime(), clock);
    assert.equal(ready?.drainEndsAt, undefined);
    clock += 5000;
    pool.release(lease.key, 's1', { reason: 'sessionClosed' });
    const [draining] = pool.stats();
    assert.equal(draining?.state, 'draining');
    assert.deepEqual(draining?.refs, []);
    assert.equal(draining?.drainEndsAt?.getTime(), clock + 60_000);
    await pool.acquire(
      testTicket('fs', fixtureConfig(), { sessionId: 's2' }),
      new RecordingHolder('s2'),
    );
    assert.equal(pool.stats()[0]?.drainEndsAt, undefined, 'taken again: no drain');
  } finally {
    await pool.close();
  }
});
