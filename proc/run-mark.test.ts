import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { until } from '../testing/until.js';
import { tempDir } from '../testing/temp-dir.js';
import { GroupChild } from './group-child.js';
import { ProcessRecorder, reapOrphans, recordingHooks } from './orphans.js';
import { readStat } from './process-tree.js';
import { markedProcesses, newRunMark, RUN_MARK_ENV, type RunMark } from './run-mark.js';

const T = { timeout: 30_000 };
const RUN_MARK_JS = fileURLToPath(new URL('./run-mark.js', import.meta.url));

/** A process of its own group that runs until killed, with `env` over ours. */
function sleeper(env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, ...env },
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function end(children: readonly ChildProcess[]): Promise<void> {
  for (const c of children) c.kill('SIGKILL');
  await Promise.all(children.map(exited));
}

function theMark(): RunMark {
  const mark = newRunMark();
  assert.ok(mark, 'Linux: /proc gives a mark');
  return mark;
}

/** Pids `markedProcesses(mark)` names, once the processes' environments can be read. */
function namedPids(mark: RunMark): number[] {
  return markedProcesses(mark).map((p) => p.pid);
}

test('a mark is random per run, and carried only by processes given it', T, async () => {
  const mark = theMark();
  assert.match(mark.id, /^[0-9a-f]{32}$/);
  assert.notEqual(theMark().id, mark.id);
  assert.equal(mark.uid, process.getuid?.());
  assert.equal(mark.startTime, readStat(process.pid)?.startTime);

  const carrier = sleeper({ [RUN_MARK_ENV]: mark.id });
  const other = sleeper({ [RUN_MARK_ENV]: theMark().id });
  const prefix = sleeper({ [RUN_MARK_ENV]: `${mark.id}0` });
  const plain = sleeper();
  const all = [carrier, other, prefix, plain];
  try {
    await until('the carrier to be named', () => namedPids(mark).includes(carrier.pid ?? -1));
    assert.deepEqual(namedPids(mark), [carrier.pid], 'only the exact mark is named');
    // Another user's mark, another boot, or a daemon that started after it: nothing.
    assert.deepEqual(namedPids({ ...mark, uid: mark.uid + 1 }), []);
    assert.deepEqual(namedPids({ ...mark, bootId: 'another-boot' }), []);
    const after = readStat(carrier.pid ?? -1)?.startTime ?? '0';
    assert.deepEqual(namedPids({ ...mark, startTime: String(BigInt(after) + 1n) }), []);
  } finally {
    await end(all);
  }
});

test('a marked process never names itself nor an ancestor', T, async () => {
  const mark = theMark();
  // The carrier asks, through a marked child of its own: that child names neither of them.
  const ask = [
    `const { markedProcesses } = await import(${JSON.stringify(RUN_MARK_JS)});`,
    `process.stdout.write(JSON.stringify({ self: process.pid, parent: process.ppid,`,
    `  named: markedProcesses(${JSON.stringify(mark)}).map((p) => p.pid) }));`,
  ].join('\n');
  const parent = spawn(
    process.execPath,
    [
      '-e',
      `const { spawnSync } = require('node:child_process');
       const r = spawnSync(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(ask)}]);
       process.stdout.write(r.stdout);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [RUN_MARK_ENV]: mark.id } },
  );
  let out = '';
  parent.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  await exited(parent);
  const seen = JSON.parse(out) as { self: number; parent: number; named: number[] };
  assert.equal(seen.parent, parent.pid);
  assert.ok(!seen.named.includes(seen.self), 'not itself');
  assert.ok(!seen.named.includes(seen.parent), 'not its (marked) parent');
});

test('the mark goes into the environment over the config, and into the state file', T, async () => {
  const dir = tempDir('mcpctl-mark-');
  try {
    const recorder = new ProcessRecorder(dir.file('state.json'));
    const mark = recorder.mark;
    assert.ok(mark);
    const hooks = recordingHooks(recorder, { kind: 'McpServer', connectionId: 'x::1' });
    assert.deepEqual(hooks.markEnv, { [RUN_MARK_ENV]: mark.id });
    // A config that sets the variable itself cannot unmark its server.
    const child = GroupChild.spawn({
      command: process.execPath,
      args: ['-e', `process.stdout.write(process.env.${RUN_MARK_ENV} ?? '')`],
      env: { [RUN_MARK_ENV]: 'chosen by the config' },
      ...hooks,
    });
    let out = '';
    child.child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    await new Promise<void>((resolve) => child.onExit(() => resolve()));
    await child.end({ stdinGraceMs: 0, graceMs: 100, reapWaitMs: 1000 });
    assert.equal(out, mark.id);
    // Any record writes the file (this one names us, which a reaper never signals).
    recorder.add(process.pid);
    const state = JSON.parse(readFileSync(dir.file('state.json'), 'utf8')) as { run?: RunMark };
    assert.deepEqual(state.run, mark);
  } finally {
    dir.remove();
  }
});

test(
  'reapOrphans ends what carries the run mark though no record names it, nothing else',
  T,
  async () => {
    const dir = tempDir('mcpctl-mark-');
    const mark = theMark();
    const escaped = sleeper({ [RUN_MARK_ENV]: mark.id });
    const stranger = sleeper({ [RUN_MARK_ENV]: theMark().id });
    const plain = sleeper();
    try {
      await until('the escapee to carry its mark', () =>
        namedPids(mark).includes(escaped.pid ?? -1),
      );
      const file = dir.file('state.json');
      writeFileSync(file, JSON.stringify({ version: 1, ownerPid: 4242, run: mark, processes: [] }));
      const report = await reapOrphans(file, { graceMs: 300 });
      assert.deepEqual(
        report.marked.map((p) => p.pid),
        [escaped.pid],
      );
      assert.deepEqual(report.killed, []);
      assert.deepEqual(report.errors, []);
      await exited(escaped);
      assert.equal(stranger.exitCode ?? stranger.signalCode, null, 'another mark: left alone');
      assert.equal(plain.exitCode ?? plain.signalCode, null, 'no mark: left alone');
      assert.ok(!existsSync(file));

      // A mark that is not one is said, and used for nothing.
      writeFileSync(file, JSON.stringify({ processes: [], run: { id: 'short' } }));
      const bad = await reapOrphans(file);
      assert.match(bad.errors[0] ?? '', /malformed "run" mark/);
      assert.deepEqual(bad.marked, []);
    } finally {
      await end([escaped, stranger, plain]);
      dir.remove();
    }
  },
);
