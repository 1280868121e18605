// LspConnection under pool/pool.ts's lifecycle, unchanged: the adapter a language-server pool
// needs is `make` (below) and nothing else. (A test may import pool/; lsp/ itself may not.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConnectionPool, type PoolHolder, type PoolTicket } from '../pool/pool.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { LspConnection, type LspServerOptions } from './connection.js';
import { groupAlive } from '../proc/index.js';
import { fakeServer } from './testing/servers.js';

const T = { timeout: 30_000 };

/** What a language-server ticket carries beyond the pool's: the server as the client starts it. */
interface LspTicket extends PoolTicket {
  readonly server: LspServerOptions;
}

let dir: TempDir;
before(() => {
  dir = tempDir('mcpctl-lsp-pool-');
});
after(() => dir.remove());

function lspPool(drainDelayMs = 0) {
  return new ConnectionPool<LspTicket, PoolHolder, LspConnection>({
    // One process per workspace folder and config: the connectionId already covers both.
    keyOf: (ticket) => ticket.connectionId,
    make: (ticket, _key, host) =>
      new LspConnection(ticket.server, { onLost: (reason) => host.lost(reason, 'failed') }),
    drainDelayMs,
    now: Date.now,
    warn: (message) => assert.fail(message),
  });
}

const ticket = (sessionId: string): LspTicket => ({
  name: 'fake',
  connectionId: 'fake::0123456789abcdef',
  sessionId,
  server: fakeServer(dir.path, 'normal'),
});

const holder = (sessionId: string, lost: string[] = []): PoolHolder => ({
  sessionId,
  onLost: (reason) => lost.push(`${sessionId}: ${reason}`),
});

test('two sessions share one process; the last config release ends it', T, async () => {
  const pool = lspPool();
  const [a, b] = await Promise.all([
    pool.acquire(ticket('s1'), holder('s1')),
    pool.acquire(ticket('s2'), holder('s2')),
  ]);
  assert.equal(a.connection, b.connection, 'single-flight: one connection');
  const pid = a.connection.pid!;
  assert.equal(await a.connection.request('fake/garbage', null), 'ok');
  const [stats] = pool.stats();
  assert.deepEqual(stats?.refs, ['s1', 's2']);
  assert.equal(stats?.kind, 'languageServer');
  pool.release('fake::0123456789abcdef', 's1', { reason: 'config' });
  assert.ok(groupAlive(pid), 'the other session still holds it');
  pool.release('fake::0123456789abcdef', 's2', { reason: 'config' });
  await until('the process group to be gone', () => !groupAlive(pid), { timeoutMs: 10_000 });
  await pool.close();
});

test(
  'a lost server: the pool drops it and tells every holder, after its group ended',
  T,
  async () => {
    const pool = lspPool();
    const lost: string[] = [];
    const lease = await pool.acquire(ticket('s1'), holder('s1', lost));
    await pool.acquire(ticket('s2'), holder('s2', lost));
    const pid = lease.connection.pid!;
    process.kill(pid, 'SIGKILL');
    await until('both holders told', () => lost.length === 2);
    assert.ok(
      lost.every((l) => /killed by SIGKILL/.test(l)),
      lost.join('\n'),
    );
    assert.ok(!groupAlive(pid));
    assert.deepEqual(pool.stats(), []);
    await pool.close();
  },
);

test('pool.close() ends every language server process', T, async () => {
  const pool = lspPool(60_000);
  const lease = await pool.acquire(ticket('s1'), holder('s1'));
  const pid = lease.connection.pid!;
  pool.releaseSession('s1'); // draining: still alive
  assert.ok(groupAlive(pid));
  await pool.close();
  await until('the process group to be gone', () => !groupAlive(pid), { timeoutMs: 10_000 });
});
