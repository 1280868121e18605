/**
 * Queue semantics seen through a session, on in-memory servers whose connect we can hold:
 * edits during a running reconcile coalesce into exactly one more pass; an edit that refuses
 * the server being connected stops that connect at once.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createPool } from '../pool/index.js';
import { inMemoryConnector } from '../pool/testing/in-memory.js';
import { SessionApprovals } from '../approvals/index.js';
import { Session } from './session.js';
import { condition, harness, servers, sleep, type Harness } from './testing/harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 30_000 };

function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('session and the work queue', T, () => {
  let h: Harness;
  let hold = gate();
  const versions: string[] = [];
  beforeEach(async () => {
    hold = gate();
    versions.length = 0;
    const mem = inMemoryConnector(async (ticket) => {
      versions.push(String(ticket.config.args?.[0]));
      await hold.wait;
      const server = new McpServer({ name: 'mem', version: '1.0.0' });
      server.registerTool(String(ticket.config.args?.[0]), {}, () => ({ content: [] }));
      return server;
    });
    h = await harness({ pool: createPool({ connector: mem.connector, drainDelayMs: 0 }) });
  });
  afterEach(async () => {
    hold.open();
    await h.close();
  });

  it('two edits during a running reconcile cause exactly one more pass', T, async () => {
    h.write(h.files.user, servers({ a: { command: 'mem', args: ['v1'] } }));
    const s = await h.session();
    const passes: string[] = [];
    s.on('change', (name) => {
      if (name === 'a') passes.push(name);
    });
    await until('first connect started', () => versions.length === 1);
    h.write(h.files.user, servers({ a: { command: 'mem', args: ['v2'] } }));
    await sleep(250);
    h.write(h.files.user, servers({ a: { command: 'mem', args: ['v3'] } }));
    await sleep(250);
    assert.equal(passes.length, 0, 'the first pass is still running');
    hold.open();
    await until(
      'v3 live',
      () => s.kind('McpServer').get('a')?.status.tools.join() === 'v3' || undefined,
    );
    await s.settled();
    assert.deepEqual(passes, ['a', 'a'], 'the running pass plus exactly one more');
    assert.deepEqual(versions, ['v1', 'v3'], 'the intermediate edit was never connected');
  });

  it(
    'a server refused while it connects: the pass stops waiting, the connect is cancelled',
    T,
    async () => {
      const a = { command: 'mem', args: ['v1'] };
      h.write(h.files.user, servers({ a, b: { command: 'mem', args: ['v2'] } }));
      const s = await h.session();
      await until('both connects started', () => versions.length === 2);
      // The connects never finish by themselves (the hold stays shut): only a preempt ends a's.
      h.write(h.files.user, {
        ...servers({ a, b: { command: 'mem', args: ['v2'] } }),
        mcp: { excluded: ['a'] },
      });
      await until(
        'a refused',
        () => condition(s.kind('McpServer').get('a'), 'Admitted') === 'False/Excluded',
      );
      assert.equal(condition(s.kind('McpServer').get('a'), 'Ready'), 'False/NotAdmitted');
      assert.deepEqual(
        h.pool.stats().map((e) => e.name),
        ['b'],
        'a is gone from the pool; b still connects',
      );
      assert.equal(
        s.eventList().filter((e) => e.reason === 'ConnectFailed').length,
        0,
        'a preempted connect is no failure',
      );
      hold.open();
      await until(
        'b ready',
        () => condition(s.kind('McpServer').get('b'), 'Ready') === 'True/Connected',
      );
    },
  );

  it('reload before start is a safe no-op', T, async () => {
    h.write(h.files.user, servers({ a: { command: 'mem', args: ['v1'] } }));
    hold.open();
    const s = new Session({
      workspace: h.workspace,
      home: h.home,
      systemSettingsPath: h.files.system,
      pool: h.pool,
      approvals: h.approvals,
      sessionApprovals: new SessionApprovals(),
      debounceMs: 80,
    });
    try {
      await s.reload();
      assert.equal(h.pool.acquired.length, 0);
      await s.start();
      await until(
        'a ready',
        () => s.kind('McpServer').get('a')?.status.tools.length === 1 || undefined,
      );
      assert.equal(h.pool.acquired.length, 1);
    } finally {
      await s.close();
    }
  });

  it('close releases every lease of the session', T, async () => {
    hold.open();
    h.write(
      h.files.user,
      servers({ a: { command: 'mem', args: ['v1'] }, b: { command: 'mem', args: ['v2'] } }),
    );
    const s = await h.session();
    await until(
      'both ready',
      () => h.pool.stats().filter((e) => e.state === 'ready').length === 2 || undefined,
    );
    await s.close();
    await until('pool drained', () => h.pool.stats().length === 0 || undefined);
  });
});
