import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { until } from '../testing/until.js';
import {
  endProcesses,
  parseStat,
  ProcessTree,
  readProcessTable,
  readStat,
  stillRunning,
  TreeScanner,
  type ProcessIdentity,
  type ProcStat,
  type ProcessTable,
} from './process-tree.js';
import { pidAlive } from './process-group.js';

const T = { timeout: 30_000 };

const stat = (ppid: number, startTime: string, pgrp = ppid, state = 'S'): ProcStat => ({
  state,
  ppid,
  pgrp,
  startTime,
});

const ids = (tree: ProcessTree): string[] =>
  tree
    .descendants()
    .map((d) => `${d.pid}@${d.startTime}`)
    .sort();

test('parses /proc/<pid>/stat, a command name with spaces and parentheses included', () => {
  const text = '4242 (a (weird) name) S 100 4242 4242 0 -1 4194560 ' + '0 '.repeat(12) + '777 0';
  assert.deepEqual(parseStat(text), { state: 'S', ppid: 100, pgrp: 4242, startTime: '777' });
  assert.equal(parseStat('garbage'), undefined);
});

test('remembers descendants across re-parenting, and never adopts a reused pid', () => {
  const found: number[] = [];
  const tree = new ProcessTree({ pid: 10, startTime: '100' }, (d) => found.push(d.pid));
  // 10 → 11 (same group) → 12 (setsid: its own group).
  tree.observe(
    new Map([
      [10, stat(1, '100', 10)],
      [11, stat(10, '110', 10)],
      [12, stat(11, '120', 12)],
      [99, stat(1, '990', 99)],
    ]),
  );
  assert.deepEqual(ids(tree), ['11@110', '12@120']);
  assert.deepEqual(found, [11, 12]);
  // 11 exits: 12 now hangs from PID 1, and starts 13. Still ours.
  tree.observe(
    new Map([
      [10, stat(1, '100', 10)],
      [12, stat(1, '120', 12)],
      [13, stat(12, '130', 12)],
    ]),
  );
  assert.deepEqual(ids(tree), ['11@110', '12@120', '13@130']);
  // The root exits and its pid goes to another process, with children of its own; pid 12 is
  // reused too. None of them is ours.
  tree.observe(
    new Map([
      [10, stat(1, '500', 10)],
      [14, stat(10, '510', 10)],
      [12, stat(1, '520', 12)],
      [15, stat(12, '530', 12)],
    ]),
  );
  assert.deepEqual(ids(tree), ['11@110', '12@120', '13@130']);
  assert.deepEqual(found, [11, 12, 13]);
});

test('zombies are not walked, and PID 1 and this process are never remembered', () => {
  const tree = new ProcessTree({ pid: 10, startTime: '100' });
  const table: ProcessTable = new Map([
    [10, stat(1, '100', 10, 'Z')],
    [11, stat(10, '110', 10)],
  ]);
  tree.observe(table);
  assert.deepEqual(tree.descendants(), [], 'a zombie root has no children of ours');
  const self = readStat(process.pid);
  assert.ok(self, 'this test runs where /proc exists');
  const odd = new ProcessTree({ pid: self.ppid, startTime: readStat(self.ppid)?.startTime ?? '' });
  odd.observe(
    new Map([
      [self.ppid, readStat(self.ppid) as ProcStat],
      [process.pid, self],
    ]),
  );
  assert.deepEqual(odd.descendants(), [], 'this process is never a target');
});

test('endProcesses ends a live process and leaves a pid whose start time differs', T, async () => {
  const a = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  const b = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  try {
    const pa = a.pid ?? -1;
    const pb = b.pid ?? -1;
    const ia: ProcessIdentity = { pid: pa, startTime: readStat(pa)?.startTime ?? '' };
    // b's pid, as if an earlier process had had it: another start time.
    const stale: ProcessIdentity = { pid: pb, startTime: '1' };
    assert.ok(stillRunning(ia));
    assert.equal(stillRunning(stale), false);
    await endProcesses([ia, stale, { pid: 1, startTime: '1' }], 300, 2000);
    await until('the real one is gone', () => !pidAlive(pa), { timeoutMs: 5000 });
    assert.ok(pidAlive(pb), 'the reused pid was not touched');
  } finally {
    a.kill('SIGKILL');
    b.kill('SIGKILL');
  }
});

test('a scanner finds a setsid grandchild of a tracked process', T, async () => {
  const script = [
    "const { spawn } = require('node:child_process');",
    "const g = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { detached: true, stdio: 'ignore' });",
    'g.unref();',
    'console.log(g.pid);',
    'setInterval(() => {}, 1 << 30);',
  ].join('\n');
  const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  let grandchild = -1;
  try {
    grandchild = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (c: Buffer) => resolve(Number(String(c).trim()))),
    );
    const pid = parent.pid ?? -1;
    const tree = new ProcessTree({ pid, startTime: readStat(pid)?.startTime ?? '' });
    const scanner = new TreeScanner(0);
    const untrack = scanner.track(tree);
    await scanner.scan();
    untrack();
    assert.deepEqual(
      tree.descendants().map((d) => d.pid),
      [grandchild],
    );
    assert.notEqual(readStat(grandchild)?.pgrp, pid, 'it left the group');
    assert.ok((await readProcessTable())?.has(grandchild));
  } finally {
    parent.kill('SIGKILL');
    if (grandchild > 0) {
      try {
        process.kill(grandchild, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
});
