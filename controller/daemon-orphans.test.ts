// The daemon's one orphan record (DESIGN §5 "No orphans"), for both kinds of server: what a
// hard-killed daemon left is reaped at start whatever its kind, and the record the MCP pool
// writes is the one a language-server pool writes to (a second recorder would erase it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { pidAlive, processStartTime, recordingHooks, type ProcessRecord } from '../proc/index.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { Daemon, type DaemonLog } from './daemon.js';

const T = { timeout: 60_000 };
const FIXTURE = fileURLToPath(new URL('../e2e/fixtures/stdio-server.js', import.meta.url));

let dir: TempDir;
before(() => {
  dir = tempDir('mcpctl-daemon-orphans-');
});
after(() => dir.remove());

/** A process in a group of its own, as a server the daemon spawned. */
function startGroup(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  return child.pid!;
}

function daemonOptions(name: string, log?: DaemonLog) {
  const home = dir.file(`${name}-home`);
  const workspace = dir.file(`${name}-ws`);
  mkdirSync(path.join(home, '.qwen'), { recursive: true });
  mkdirSync(workspace, { recursive: true });
  return {
    home,
    workspace,
    systemSettingsPath: dir.file(`${name}-none.json`),
    env: { MCPCTL_APPROVALS_PATH: dir.file(`${name}-approvals.json`) },
    stateFile: dir.file(`${name}-children.json`),
    drainDelayMs: 0,
    debounceMs: 60,
    ...(log ? { log } : {}),
  };
}

const records = (file: string): ProcessRecord[] =>
  (JSON.parse(readFileSync(file, 'utf8')) as { processes: ProcessRecord[] }).processes;

test(
  'a language server left by a hard-killed daemon is reaped at start, and said so',
  T,
  async () => {
    const warnings: string[] = [];
    const log: DaemonLog = {
      debug: () => undefined,
      info: () => undefined,
      warn: (_obj, msg) => warnings.push(msg),
      error: () => undefined,
    };
    const options = daemonOptions('reap', log);
    const pid = startGroup();
    try {
      await until('its start time', () => processStartTime(pid));
      writeFileSync(
        options.stateFile,
        JSON.stringify({
          version: 1,
          ownerPid: 999_999,
          processes: [
            {
              pid,
              pgid: pid,
              startTime: processStartTime(pid),
              kind: 'LanguageServer',
              connectionId: 'ts::0123456789abcdef',
              recordedAt: new Date().toISOString(),
            },
          ],
        }),
      );
      const daemon = await Daemon.start(options);
      try {
        assert.equal(daemon.reaped.killed, 1);
        assert.ok(!pidAlive(pid), 'gone before the daemon is up');
        assert.ok(warnings.includes('reaped a language server left by a previous daemon'));
      } finally {
        await daemon.stop();
      }
    } finally {
      if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  },
);

test('one record: the MCP pool and a language server write to the same file', T, async () => {
  const options = daemonOptions('one');
  writeFileSync(
    path.join(options.home, '.qwen', 'settings.json'),
    JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } } }),
  );
  const daemon = await Daemon.start(options);
  const languageServer = startGroup();
  try {
    const mcpPid = await until(
      'fx Ready',
      () => daemon.defaultSession.kind('McpServer').get('fx')?.status.pid,
    );
    assert.ok(daemon.processes, 'a daemon with a state file has one recorder');
    // What the language-server pool does with each server it spawns.
    const hooks = recordingHooks(daemon.processes, {
      kind: 'LanguageServer',
      connectionId: 'ts::0123456789abcdef',
      command: 'typescript-language-server',
    });
    hooks.onSpawn(languageServer);
    assert.deepEqual(
      records(options.stateFile)
        .map((r) => `${r.pid} ${r.kind}`)
        .sort(),
      [`${mcpPid} McpServer`, `${languageServer} LanguageServer`].sort(),
    );
    hooks.onGone(languageServer);
    assert.deepEqual(
      records(options.stateFile).map((r) => r.pid),
      [mcpPid],
    );
  } finally {
    await daemon.stop();
    process.kill(languageServer, 'SIGKILL');
  }
});
