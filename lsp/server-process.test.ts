// No orphans for language servers (DESIGN §5, issue #24 "the drain, orphan and process-tree
// guarantees of MCP servers hold for language servers too"): a child that left the server's
// process group with setsid ends with it, on close and after a loss, and a language server
// left by an owner killed hard is reaped from the record. (A test may import proc/'s helpers.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { groupAlive, reapOrphans, sharedTreeScanner, type ProcessRecord } from '../proc/index.js';
import { isAlive } from '../testing/processes.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { LspConnection } from './connection.js';
import { fakeServer } from './testing/servers.js';

const T = { timeout: 30_000 };
const OWNER = fileURLToPath(new URL('./testing/recorded-owner.js', import.meta.url));

let dir: TempDir;
before(() => {
  dir = tempDir('mcpctl-lsp-proc-');
});
after(() => dir.remove());

/** Ends what a failed test left, so no test leaves a process behind. */
function kill(pid: number | undefined): void {
  if (pid === undefined || pid <= 1) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: what the test wanted.
  }
}

/** The hooks a pool hands in, recorded as calls. */
function recordedHooks() {
  const calls = { spawned: [] as number[], descendants: [] as number[], gone: [] as number[] };
  return {
    calls,
    hooks: {
      onSpawn: (pid: number) => calls.spawned.push(pid),
      onDescendant: (pid: number) => calls.descendants.push(pid),
      onGone: (pid: number) => calls.gone.push(pid),
    },
  };
}

test(
  'close() ends a child that left the group with setsid, and tells each pid once gone',
  T,
  async () => {
    const { calls, hooks } = recordedHooks();
    const conn = new LspConnection(fakeServer(dir.path, 'normal'), { processes: hooks });
    let escapee: number | undefined;
    try {
      await conn.open();
      const pid = conn.pid!;
      assert.deepEqual(calls.spawned, [pid]);
      escapee = await conn.request<number>('fake/escapee', null);
      assert.ok(isAlive(escapee));
      assert.ok(groupAlive(escapee), 'it leads a group of its own: the group signal misses it');
      // No scan since it started: close() must look for it while the server still runs (the
      // polite shutdown lets the server exit first, which hands the escapee to PID 1).
      await conn.close();
      assert.ok(!groupAlive(pid), 'the server group is gone');
      await until('the escapee ended with its server', () => !isAlive(escapee!), {
        timeoutMs: 5000,
      });
      assert.deepEqual(calls.descendants, [escapee]);
      assert.deepEqual(calls.gone.sort(), [pid, escapee].sort());
    } finally {
      await conn.close();
      kill(escapee);
    }
  },
);

test('a lost server: a child that left its group and was seen is ended too', T, async () => {
  const lost: string[] = [];
  const { calls, hooks } = recordedHooks();
  const conn = new LspConnection(fakeServer(dir.path, 'normal'), {
    onLost: (reason) => lost.push(reason),
    processes: hooks,
  });
  let escapee: number | undefined;
  try {
    await conn.open();
    const pid = conn.pid!;
    escapee = await conn.request<number>('fake/escapee', null);
    // What the periodic scan does while a server runs (every DEFAULT_TREE_SCAN_MS).
    await sharedTreeScanner.scan();
    assert.deepEqual(calls.descendants, [escapee]);
    process.kill(pid, 'SIGKILL');
    await until('onLost', () => lost.length > 0);
    assert.match(lost[0], /killed by SIGKILL/);
    await until('the escapee ended with its lost server', () => !isAlive(escapee!), {
      timeoutMs: 5000,
    });
    assert.deepEqual(calls.gone.sort(), [pid, escapee].sort());
  } finally {
    await conn.close();
    kill(escapee);
  }
});

test(
  'an owner killed hard: its language server and escapee are in the record, reaped next start',
  T,
  async () => {
    const stateFile = dir.file('children.json');
    const owner = spawn(process.execPath, [OWNER, stateFile, dir.path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => owner.once('exit', () => resolve()));
    let pids: { server: number; escapee: number } | undefined;
    try {
      const lines = createInterface({ input: owner.stdout });
      const first = await new Promise<string>((resolve, reject) => {
        lines.once('line', resolve);
        owner.once('exit', (code) => reject(new Error(`the owner exited (${code})`)));
      });
      lines.close();
      pids = JSON.parse(first) as { server: number; escapee: number };
      const recorded = (
        JSON.parse(readFileSync(stateFile, 'utf8')) as { processes: ProcessRecord[] }
      ).processes;
      assert.deepEqual(
        recorded.map((r) => [r.pid, r.kind, r.connectionId]).sort(),
        [
          [pids.server, 'LanguageServer', 'fake-stubborn::0123456789abcdef'],
          [pids.escapee, 'LanguageServer', 'fake-stubborn::0123456789abcdef'],
        ].sort(),
        'the server and its escapee are recorded, as language servers',
      );

      owner.kill('SIGKILL');
      await exited;
      assert.ok(isAlive(pids.server), 'the language server outlived its owner');
      assert.ok(isAlive(pids.escapee), 'so did its escapee');

      const report = await reapOrphans(stateFile, { graceMs: 300 });
      assert.deepEqual(report.errors, []);
      assert.deepEqual(report.killed.map((r) => r.pid).sort(), [pids.server, pids.escapee].sort());
      await until(
        'the language server and its escapee to be gone',
        () => !isAlive(pids!.server) && !isAlive(pids!.escapee),
        { timeoutMs: 5000 },
      );
    } finally {
      owner.kill('SIGKILL');
      await exited;
      kill(pids?.server);
      kill(pids?.escapee);
    }
  },
);
