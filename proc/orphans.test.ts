import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { until } from '../testing/until.js';
import { processStartTime, ProcessRecorder, reapOrphans } from './orphans.js';
import { readPid, STDIO_FIXTURE, tempDir } from '../pool/testing/fixtures.js';
import { pidAlive } from './process-group.js';

const T = { timeout: 30_000 };

/** A detached group like one the pool starts: the fixture plus a grandchild. */
function startGroup(grandchildFile: string): ChildProcess {
  return spawn(
    process.execPath,
    [STDIO_FIXTURE, '--ignore-stdin-end', `--grandchild-pid-file=${grandchildFile}`],
    { detached: true, stdio: ['pipe', 'ignore', 'ignore'] },
  );
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

test(
  'the recorder keeps pid, group and start time, and removes the file when empty',
  T,
  async () => {
    const dir = tempDir();
    const file = dir.file('nested/state.json');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
    });
    try {
      const pid = child.pid ?? -1;
      const recorder = new ProcessRecorder(file);
      recorder.add(pid, { connectionId: 'x::1', command: 'node' });
      const state = JSON.parse(readFileSync(file, 'utf8')) as {
        version: number;
        processes: Array<{ pid: number; pgid: number; startTime: string; connectionId: string }>;
      };
      assert.equal(state.version, 1);
      assert.equal(state.processes[0]?.pid, pid);
      assert.equal(state.processes[0]?.pgid, pid);
      assert.match(state.processes[0]?.startTime ?? '', /^\d+$/);
      assert.equal(state.processes[0]?.startTime, processStartTime(pid));
      assert.equal(state.processes[0]?.connectionId, 'x::1');
      recorder.remove(pid);
      assert.ok(!existsSync(file));
    } finally {
      child.kill('SIGKILL');
      await exited(child);
      dir.remove();
    }
  },
);

test(
  'reapOrphans kills a recorded live group, grandchildren included, and clears the file',
  T,
  async () => {
    const dir = tempDir();
    const file = dir.file('state.json');
    const leader = startGroup(dir.file('gc'));
    try {
      const pid = leader.pid ?? -1;
      const grandchild = await readPid(dir.file('gc'));
      // What a pool killed with SIGKILL leaves behind.
      new ProcessRecorder(file).add(pid, { connectionId: 'orphan::1' });
      const report = await reapOrphans(file, { graceMs: 300 });
      assert.deepEqual(
        report.killed.map((r) => r.pid),
        [pid],
      );
      assert.deepEqual(report.skipped, []);
      assert.deepEqual(report.errors, []);
      await exited(leader);
      assert.ok(!pidAlive(pid));
      // The grandchild's zombie is reaped by PID 1, which may take a moment.
      await until('grandchild gone', () => !pidAlive(grandchild), { timeoutMs: 5000 });
      assert.ok(!existsSync(file), 'file cleared');
    } finally {
      try {
        process.kill(-(leader.pid ?? -1), 'SIGKILL');
      } catch {
        // Already gone: the expected case.
      }
      await exited(leader);
      dir.remove();
    }
  },
);

test('reapOrphans leaves a pid whose start time differs (a reused pid) alone', T, async () => {
  const dir = tempDir();
  const file = dir.file('state.json');
  const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    detached: true,
    stdio: 'ignore',
  });
  try {
    const pid = other.pid ?? -1;
    const real = processStartTime(pid);
    assert.ok(real !== undefined);
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        ownerPid: 1234,
        processes: [
          {
            pid,
            pgid: pid,
            startTime: String(Number(real) - 100),
            recordedAt: new Date().toISOString(),
          },
          { pid: 1, pgid: 1, startTime: '1', recordedAt: new Date().toISOString() },
          {
            pid: process.pid,
            pgid: process.pid,
            startTime: processStartTime(process.pid),
            recordedAt: '',
          },
          { pid, pgid: pid, startTime: null, recordedAt: '' },
        ],
      }),
    );
    const report = await reapOrphans(file, { graceMs: 300 });
    assert.deepEqual(report.killed, []);
    assert.equal(report.skipped.length, 4);
    assert.match(report.skipped[0]?.reason ?? '', /now belongs to another process \(start time/);
    assert.match(report.skipped[1]?.reason ?? '', /invalid pid/);
    assert.match(report.skipped[2]?.reason ?? '', /this process/);
    assert.match(report.skipped[3]?.reason ?? '', /start time was not recorded/);
    assert.ok(pidAlive(pid), 'the unrelated process still runs');
    assert.ok(!existsSync(file));
  } finally {
    other.kill('SIGKILL');
    await exited(other);
    dir.remove();
  }
});

test('reapOrphans copes with no file, a bad file and processes that are gone', T, async () => {
  const dir = tempDir();
  try {
    assert.deepEqual(await reapOrphans(dir.file('missing.json')), {
      killed: [],
      marked: [],
      skipped: [],
      errors: [],
    });
    writeFileSync(dir.file('bad.json'), '{ not json');
    const bad = await reapOrphans(dir.file('bad.json'));
    assert.equal(bad.errors.length, 1);
    assert.match(bad.errors[0] ?? '', /not valid JSON/);
    assert.ok(!existsSync(dir.file('bad.json')));

    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await exited(child);
    writeFileSync(
      dir.file('gone.json'),
      JSON.stringify({
        processes: [{ pid: child.pid, pgid: child.pid, startTime: '5', recordedAt: '' }, 'junk'],
      }),
    );
    const gone = await reapOrphans(dir.file('gone.json'));
    assert.deepEqual(gone.killed, []);
    assert.equal(gone.skipped[0]?.reason, 'not running');
    assert.match(gone.errors[0] ?? '', /malformed record/);
  } finally {
    dir.remove();
  }
});
