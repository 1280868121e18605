/**
 * Faults with real server processes, driven through an in-process Session (issue 8, faults):
 * a crash loop and its back-off, a server stuck in initialize, one that ignores SIGTERM, one
 * with a grandchild, a settings file deleted and re-created, and an editor's truncate-then-write.
 *
 * Already covered elsewhere, and not repeated here (these tests check what the session makes of
 * the same faults: conditions, events, which processes remain):
 * - pool/pool.test.ts "a server that hangs before initialize times out … and is killed" (pool);
 * - pool/stdio-transport.test.ts "a server that ignores SIGTERM and stdin end is gone …" and
 *   "grandchildren in the group are gone after close" (transport close);
 * - informers/file-source.test.ts "create, modify, delete and re-create each emit once" and
 *   "truncate-then-write within the debounce is one change, never empty" (informer events);
 * - controller/session.test.ts "a crash loop reaches CrashLoopBackOff and recovers" (without
 *   the back-off schedule, which is checked here).
 */
import assert from 'node:assert/strict';
import { rmSync, truncateSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { isAlive } from './harness.js';
import { readPid, tempDir, type TempDir } from '../pool/testing/fixtures.js';
import {
  condition,
  fixtureConfig,
  harness,
  readyPid,
  servers,
  type Harness,
} from '../controller/testing/harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

/** The "next retry at" time in a Ready=False message, as epoch ms. */
function retryAt(message: string | undefined): number | undefined {
  const at = /next retry at (\S+)$/.exec(message ?? '')?.[1];
  return at === undefined ? undefined : Date.parse(at);
}

describe('faults with real processes (in-process session)', T, () => {
  let h: Harness;
  let dir: TempDir;
  beforeEach(async () => {
    h = await harness();
    dir = tempDir('mcpctl-faults-');
  });
  afterEach(async () => {
    await h.close();
    dir.remove();
  });

  it(
    'crash loop: back-off doubles up to the cap, CrashLoopBackOff, recovery once fixed',
    T,
    async () => {
      // The session's clock only moves when the test moves it, so each back-off the controller
      // chose can be read exactly off its condition: retry time minus the clock at the failure.
      let clock = Date.parse('2030-01-01T00:00:00Z');
      h.write(h.files.user, servers({ a: fixtureConfig(['--exit-after=300']) }));
      const s = await h.session({
        now: () => clock,
        backoffBaseMs: 200,
        backoffCapMs: 800,
        stableAfterMs: 3_600_000,
      });
      const ready = () =>
        s
          .kind('McpServer')
          .get('a')
          ?.status.conditions.find((c) => c.type === 'Ready');
      const delays: number[] = [];
      const reasons: string[] = [];
      let last = 0;
      for (let failure = 1; failure <= 5; failure++) {
        const at = await until(
          `failure ${failure}`,
          () => {
            const r = ready();
            const t = retryAt(r?.message);
            return r?.status === 'False' && t !== undefined && t > last ? t : undefined;
          },
          { timeoutMs: 30_000 },
        );
        delays.push(at - clock);
        reasons.push(ready()?.reason ?? '');
        assert.equal(s.registry.get('a'), undefined, 'a crashed server shows no tools');
        last = at;
        clock = at; // the window is over: the next pass may retry
      }
      assert.deepEqual(delays, [200, 400, 800, 800, 800]);
      assert.deepEqual(reasons.slice(2), [
        'CrashLoopBackOff',
        'CrashLoopBackOff',
        'CrashLoopBackOff',
      ]);
      assert.ok(
        s.eventList().some((e) => e.reason === 'BackOff' && e.involvedObject === 'server/a'),
      );

      h.write(h.files.user, servers({ a: fixtureConfig() }));
      const pid = await until('recovered', () => readyPid(s, 'a'), { timeoutMs: 30_000 });
      await s.settled();
      assert.equal(condition(s.kind('McpServer').get('a'), 'Ready'), 'True/Connected');
      assert.ok(isAlive(pid));
      assert.deepEqual(
        s.registry.get('a')?.tools.map((t) => t.name),
        ['echo'],
      );
    },
  );

  it('hang in initialize: times out, says so, and every stuck process is killed', T, async () => {
    const pidFile = dir.file('stuck.pid');
    h.write(
      h.files.user,
      servers({
        a: fixtureConfig(['--hang-before-initialize', `--pid-file=${pidFile}`], {
          discoveryTimeoutMs: 500,
        }),
      }),
    );
    const s = await h.session();
    const pids = new Set<number>();
    // Two attempts (the first and its retry), each one a process of its own.
    await until(
      'two timed-out attempts',
      async () => {
        pids.add(await readPid(pidFile));
        const failed = s
          .eventList()
          .filter(
            (e) => e.involvedObject === 'server/a' && /timed out after 500 ms/.test(e.message),
          );
        return failed.length >= 2 || failed.some((e) => e.count >= 2);
      },
      { timeoutMs: 30_000 },
    );
    const r = s
      .kind('McpServer')
      .get('a')
      ?.status.conditions.find((c) => c.type === 'Ready');
    assert.equal(r?.status, 'False');
    assert.match(r?.message ?? '', /timed out after 500 ms during initialize/);
    assert.equal(s.registry.get('a'), undefined);
    h.write(h.files.user, servers({}));
    await until('a removed', () => s.kind('McpServer').get('a') === undefined);
    await s.settled();
    for (const pid of pids) await until(`stuck pid ${pid} gone`, () => !isAlive(pid));
    assert.ok(pids.size >= 1);
  });

  it(
    'a server that ignores SIGTERM and stdin end is killed on restart and on removal',
    T,
    async () => {
      const pidFile = (v: string) => dir.file(`stubborn-${v}.pid`);
      const config = (v: string) =>
        fixtureConfig(['--ignore-sigterm', '--ignore-stdin-end', `--pid-file=${pidFile(v)}`]);
      h.write(h.files.user, servers({ a: config('1') }));
      const s = await h.session();
      const first = await until('a ready', () => readyPid(s, 'a'));
      assert.equal(await readPid(pidFile('1')), first);

      h.write(h.files.user, servers({ a: config('2') }));
      const second = await until('a restarted', () => {
        const p = readyPid(s, 'a');
        return p !== first ? p : undefined;
      });
      await until('the old stubborn process is gone', () => !isAlive(first), { timeoutMs: 20_000 });

      h.write(h.files.user, servers({}));
      await until('a removed', () => s.kind('McpServer').get('a') === undefined);
      await until('the removed stubborn process is gone', () => !isAlive(second), {
        timeoutMs: 20_000,
      });
    },
  );

  it('a grandchild ends with its server, on a rolling update and on removal', T, async () => {
    const gc = (v: string) => dir.file(`grandchild-${v}.pid`);
    h.write(h.files.user, servers({ a: fixtureConfig([`--grandchild-pid-file=${gc('1')}`]) }));
    const s = await h.session();
    const first = await until('a ready', () => readyPid(s, 'a'));
    const grandchild1 = await readPid(gc('1'));
    assert.ok(isAlive(grandchild1));

    h.write(h.files.user, servers({ a: fixtureConfig([`--grandchild-pid-file=${gc('2')}`]) }));
    await until('a rolled', () => {
      const p = readyPid(s, 'a');
      return p !== undefined && p !== first;
    });
    const grandchild2 = await readPid(gc('2'));
    await until('old server and grandchild gone', () => !isAlive(first) && !isAlive(grandchild1), {
      timeoutMs: 20_000,
    });
    assert.ok(isAlive(grandchild2), 'the new grandchild runs');

    h.write(h.files.user, servers({}));
    await until('removed', () => s.kind('McpServer').get('a') === undefined);
    await until('the new grandchild is gone too', () => !isAlive(grandchild2), {
      timeoutMs: 20_000,
    });
  });

  it('settings file deleted and re-created: its servers go, then come back', T, async () => {
    const both = servers({ a: fixtureConfig(['--tools=x']), b: fixtureConfig(['--tools=y']) });
    h.write(h.files.user, both);
    h.write(h.files.project, { mcpServers: {} });
    const s = await h.session();
    const a1 = await until('a', () => readyPid(s, 'a'));
    const b1 = await until('b', () => readyPid(s, 'b'));

    rmSync(h.files.user);
    await until(
      'both gone',
      () =>
        s.kind('McpServer').get('a') === undefined && s.kind('McpServer').get('b') === undefined,
    );
    assert.equal(s.registry.entries().size, 0);
    assert.equal(s.kind('McpServer').why('a').reason, 'Removed');
    await until('their processes ended', () => !isAlive(a1) && !isAlive(b1));
    assert.equal(
      s.conditions.find((c) => c.type === 'ConfigValid')?.status,
      'True',
      'a missing file is an empty source, not an error',
    );

    h.write(h.files.user, both);
    const a2 = await until('a back', () => readyPid(s, 'a'));
    await until('b back', () => readyPid(s, 'b'));
    assert.notEqual(a2, a1);
    assert.deepEqual(s.kind('McpServer').get('a')?.status.tools, ['x']);
  });

  it('truncate-then-write: the empty file in between is never acted on', T, async () => {
    const content = (description: string) =>
      JSON.stringify(servers({ a: fixtureConfig(['--tools=x'], { description }) }), null, 2);
    h.write(h.files.user, content('v1'));
    // The default debounce: an editor's truncate and write land well inside it.
    const s = await h.session({ debounceMs: 300 });
    const pid = await until('a', () => readyPid(s, 'a'));
    await s.settled();
    const acquires = h.pool.count('a');

    // A description edit keeps the connection, and shows when the new content was read.
    truncateSync(h.files.user, 0);
    writeFileSync(h.files.user, content('v2'));
    await until('the edit is read', () => s.kind('McpServer').get('a')?.spec.description === 'v2');
    await s.settled();
    assert.equal(readyPid(s, 'a'), pid, 'a kept its process');
    assert.equal(h.pool.count('a'), acquires, 'a was not acquired again');
    assert.equal(h.pool.released.filter((k) => k.startsWith('a::')).length, 0);
    // Had the empty file been read, a would have been removed and re-created (generation 1).
    assert.equal(s.kind('McpServer').get('a')?.metadata.generation, 2);
  });
});
