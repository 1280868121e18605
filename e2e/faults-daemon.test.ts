/**
 * Faults at the level of the daemon process (issue 8, faults), with the built `mcpctl` and real
 * server processes: a hard kill and restart, a corrupt approvals file, and two daemons
 * approving at the same moment.
 *
 * Related tests, not repeated here:
 * - e2e/cli-daemon.test.ts "SIGKILL the daemon, start again: the old children are reaped and
 *   approvals hold" (servers that outlive stdin). Here the servers also ignore SIGTERM and have
 *   grandchildren, and the check is every pid the daemon recorded, not only the listed ones.
 * - approvals/store.test.ts "moves a corrupt file aside, reports it clearly…" and
 *   approvals/concurrency.test.ts (two processes on the store). Here the same through daemons.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { McpServer, McpServerList } from '../api/index.js';
import { stateFileOf } from '../cli/rpc/socket-path.js';
import { TestEnv, condition, isAlive, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };

interface StateFile {
  processes: Array<{ pid: number; pgid: number }>;
}

type Decisions = Record<string, Record<string, { hash: string; status: string }>>;

const reasonOf = (m: Map<string, McpServer>, name: string) =>
  condition(m.get(name), 'Admitted')?.reason;

describe('faults of the daemon process (e2e)', T, () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'SIGKILL and restart: every recorded server group is reaped, grandchildren too; approvals hold',
    T,
    async () => {
      const gc = env.pidFile('grandchild');
      const stubborn = ['--ignore-sigterm', '--ignore-stdin-end'];
      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx', [...stubborn, `--grandchild-pid-file=${gc}`]) },
      });
      env.write(env.mcpJsonPath, { mcpServers: { proj: env.fixture('proj', stubborn) } });
      const first = await env.startDaemon();
      await env.untilServers(
        (m) => reasonOf(m, 'proj') === 'PendingApproval' && isReady(m.get('fx')),
        'fx Ready, proj pending',
      );
      const approve = await env.cli(['approve', 'proj']);
      assert.equal(approve.code, 0, approve.stderr);
      const before = await env.untilServers(
        (m) => isReady(m.get('proj')) && isReady(m.get('fx')),
        'both Ready',
      );

      const recorded = (JSON.parse(readFileSync(stateFileOf(env.socket), 'utf8')) as StateFile)
        .processes;
      const listed = [...before.values()].map((s) => s.status.pid!).sort();
      assert.deepEqual(
        recorded.map((p) => p.pid).sort(),
        listed,
        'the state file records every server',
      );
      const grandchild = Number(readFileSync(gc, 'utf8'));
      const victims = [...listed, grandchild];
      victims.forEach((pid) => env.trackPid(pid));

      first.child.kill('SIGKILL');
      await first.exited;
      for (const pid of victims) assert.ok(isAlive(pid), `pid ${pid} outlived the killed daemon`);

      await env.startDaemon();
      await until(`every recorded group (${victims.join(', ')}) to be reaped`, () =>
        victims.every((pid) => !isAlive(pid)),
      );
      const after = await env.untilServers(
        (m) => isReady(m.get('proj')) && isReady(m.get('fx')),
        'both Ready again, proj without a new approval',
      );
      assert.equal(reasonOf(after, 'proj'), 'Approved');
      const now = (JSON.parse(readFileSync(stateFileOf(env.socket), 'utf8')) as StateFile)
        .processes;
      assert.deepEqual(
        now.map((p) => p.pid).sort(),
        [...after.values()].map((s) => s.status.pid!).sort(),
        'the new state file holds only the new servers',
      );
    },
  );

  it(
    'a corrupt approvals file: moved aside, said clearly, gated servers pending; the safe side at runtime too',
    T,
    async () => {
      const garbage = '{ "not": json at all';
      env.write(env.approvalsPath, garbage);
      env.write(env.mcpJsonPath, {
        mcpServers: { proj: env.fixture('proj'), other: env.fixture('other') },
      });
      const daemon = await env.startDaemon();
      await env.untilServers(
        (m) =>
          reasonOf(m, 'proj') === 'PendingApproval' && reasonOf(m, 'other') === 'PendingApproval',
        'both pending',
      );
      assert.equal(existsSync(env.pidFile('proj')), false, 'nothing started for a pending server');
      const qwen = path.dirname(env.approvalsPath);
      const aside = readdirSync(qwen).filter((f) => f.startsWith('mcpApprovals.json.corrupt-'));
      assert.equal(aside.length, 1, `one quarantined copy in ${readdirSync(qwen).join(', ')}`);
      assert.equal(readFileSync(path.join(qwen, aside[0]), 'utf8'), garbage, 'kept byte for byte');
      const log = daemon.stderr();
      assert.match(log, /corrupt/);
      assert.ok(log.includes(aside[0]), 'the log names where the file went');

      const ok = await env.cli(['approve', 'proj']);
      assert.equal(ok.code, 0, ok.stderr);
      const running = await env.untilServers((m) => isReady(m.get('proj')), 'proj Ready');
      const decisions = JSON.parse(readFileSync(env.approvalsPath, 'utf8')) as Decisions;
      assert.equal(decisions[realpathSync(env.workspace)]?.proj?.status, 'approved');
      const projPid = running.get('proj')!.status.pid!;

      // Corrupted while running: the next decision finds it, moves it aside, and what it held
      // counts as undecided again, so proj goes back to pending rather than on trust.
      env.write(env.approvalsPath, garbage);
      const next = await env.cli(['approve', 'other']);
      assert.equal(next.code, 0, next.stderr);
      await env.untilServers(
        (m) => isReady(m.get('other')) && reasonOf(m, 'proj') === 'PendingApproval',
        'other Ready, proj pending again',
      );
      await until('proj to stop', () => !isAlive(projPid));
      assert.equal(
        readdirSync(qwen).filter((f) => f.startsWith('mcpApprovals.json.corrupt-')).length,
        2,
      );
    },
  );

  it('two daemons approving at the same moment: every decision is kept', T, async () => {
    const names = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
    env.write(env.mcpJsonPath, {
      mcpServers: Object.fromEntries(names.map((n) => [n, env.fixture(n)])),
    });
    await env.startDaemon();
    const socketB = path.join(env.root, 'run', 'b.sock');
    const onB = { env: { MCPCTL_SOCKET: socketB } };
    const b = env.spawnDaemon(
      ['daemon', '--workspace', env.workspace, '--debounce-ms', '50', '--drain-delay-ms', '0'],
      onB,
    );
    await until('daemon B to answer', async () => {
      if (b.child.exitCode !== null) throw new Error(`daemon B exited: ${b.stderr()}`);
      return (await env.cli(['get', 'sessions', '-o', 'name'], onB)).code === 0;
    });
    // Three rounds, each one decision per daemon at once.
    for (let i = 0; i < names.length; i += 2) {
      const [onA, onOther] = await Promise.all([
        env.cli(['approve', names[i]]),
        env.cli(['approve', names[i + 1]], onB),
      ]);
      assert.equal(onA.code, 0, onA.stderr);
      assert.equal(onOther.code, 0, onOther.stderr);
    }
    const decisions = JSON.parse(readFileSync(env.approvalsPath, 'utf8')) as Decisions;
    const mine = decisions[realpathSync(env.workspace)] ?? {};
    assert.deepEqual(Object.keys(mine).sort(), names);
    for (const n of names) assert.equal(mine[n]?.status, 'approved', n);

    // Each daemon runs what it approved; the hashes it shows are the ones on file.
    const onBList = await env.cli(['get', 'servers', '-o', 'json'], onB);
    const bServers = new Map(
      (JSON.parse(onBList.stdout) as McpServerList).items.map((s) => [s.metadata.name, s]),
    );
    const aServers = await env.untilServers(
      (m) => ['p1', 'p3', 'p5'].every((n) => isReady(m.get(n))),
      'A runs p1, p3, p5',
    );
    for (const n of ['p1', 'p3', 'p5'])
      assert.equal(aServers.get(n)?.status.approvalHash, mine[n]?.hash);
    for (const n of ['p2', 'p4', 'p6'])
      assert.equal(bServers.get(n)?.status.approvalHash, mine[n]?.hash);
  });
});
