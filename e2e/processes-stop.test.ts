/**
 * e2e (issue 31, "processes really stop"): the built daemon and real server processes.
 * - A server stuck in `initialize` (an MCP server and a language server, each with a connect
 *   timeout of a minute) ends as soon as the config removes it, and `mcpctl stop` returns
 *   within its normal shutdown time with the process gone, not after the connect timeout.
 * - `mcpctl stop` and `mcpctl restart` return only once the daemon process itself is gone,
 *   also with a server that ignores SIGTERM (the daemon's shutdown then waits for SIGKILL);
 *   one that hangs up and keeps running fails `stop`, naming its pid.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { run } from '../cli/program.js';
import { until } from '../testing/until.js';
import { TestEnv, isAlive, isReady, processesMentioning } from './harness.js';
import { fakeEntry } from './lsp-agent.js';

const T = { timeout: 120_000 };
/** The connect timeout of the stuck servers: far longer than any deadline below. */
const CONNECT_TIMEOUT_MS = 60_000;
/** How long a stuck server may outlive the config's or the daemon's decision (well under it). */
const GONE_WITHIN_MS = 5_000;

/** The pid a fixture wrote to `file`, once it did. */
function pidIn(file: string): Promise<number> {
  return until('the pid file', () => {
    try {
      const pid = Number(readFileSync(file, 'utf8'));
      return pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  });
}

describe('processes really stop (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  /** An MCP server that never answers initialize, and its config. */
  function stuckServer(): { config: object; pid: () => Promise<number> } {
    return {
      config: {
        ...env.fixture('stuck', ['--hang-before-initialize']),
        discoveryTimeoutMs: CONNECT_TIMEOUT_MS,
      },
      pid: async () => {
        const pid = await pidIn(env.pidFile('stuck'));
        env.trackPid(pid);
        return pid;
      },
    };
  }

  /** A language server that reads everything and answers nothing (initialize never returns). */
  function stuckLanguageServer(): { entry: object; pid: () => Promise<number> } {
    const base = fakeEntry(env);
    const marker = `--mcpctl-test=${env.root}`;
    return {
      entry: {
        ...base,
        args: [base.args[0] ?? '', 'silent', marker],
        startupTimeout: CONNECT_TIMEOUT_MS,
      },
      pid: () =>
        until('the stuck language server to run', () => {
          const pids = processesMentioning(marker);
          pids.forEach((p) => env.trackPid(p));
          return pids.length === 1 ? pids[0] : undefined;
        }),
    };
  }

  it('an MCP server stuck in initialize ends at once when the config removes it', T, async () => {
    const stuck = stuckServer();
    env.write(env.userSettingsPath, {
      mcpServers: { stuck: stuck.config, other: env.fixture('other') },
    });
    await env.startDaemon();
    await env.untilServers((m) => isReady(m.get('other')), 'other Ready');
    const pid = await stuck.pid();
    assert.ok(isAlive(pid));

    env.write(env.userSettingsPath, { mcpServers: { other: env.fixture('other') } });
    await until('the removed stuck server to end', () => !isAlive(pid), {
      timeoutMs: GONE_WITHIN_MS,
    });
    const servers = await env.untilServers((m) => !m.has('stuck'), 'stuck gone from the list');
    assert.ok(isReady(servers.get('other')), 'the other server is untouched');
  });

  /** `mcpctl stop` with `stuck` configured returns soon, with it and the daemon gone. */
  async function stopsSoon(pid: number, daemonPid: number): Promise<void> {
    // Bounded well under the connect timeout: a stop that waited for it fails here.
    const stop = await env.cli(['stop'], { timeoutMs: 15_000 });
    assert.equal(stop.code, 0, stop.stderr);
    assert.ok(!isAlive(pid), 'the stuck server is gone');
    assert.ok(!isAlive(daemonPid), 'the daemon is gone');
  }

  it(
    'mcpctl stop with an MCP server stuck in initialize: returns soon, nothing left',
    T,
    async () => {
      const stuck = stuckServer();
      env.write(env.userSettingsPath, { mcpServers: { stuck: stuck.config } });
      const daemon = await env.startDaemon();
      await stopsSoon(await stuck.pid(), daemon.pid);
    },
  );

  it(
    'a language server stuck in initialize ends at once when the config removes it',
    T,
    async () => {
      const stuck = stuckLanguageServer();
      const config = path.join(env.root, 'lsp.json');
      env.write(config, { stuck: stuck.entry });
      await env.startDaemon(['--lsp-config', config]);
      const pid = await stuck.pid();

      env.write(config, {});
      await until('the removed stuck language server to end', () => !isAlive(pid), {
        timeoutMs: GONE_WITHIN_MS,
      });
    },
  );

  it(
    'mcpctl stop with a language server stuck in initialize: returns soon, nothing left',
    T,
    async () => {
      const stuck = stuckLanguageServer();
      const config = path.join(env.root, 'lsp.json');
      env.write(config, { stuck: stuck.entry });
      const daemon = await env.startDaemon(['--lsp-config', config]);
      await stopsSoon(await stuck.pid(), daemon.pid);
    },
  );

  it(
    'mcpctl stop and restart return only once the daemon process is gone (a SIGTERM-ignoring server)',
    T,
    async () => {
      env.write(env.userSettingsPath, {
        mcpServers: {
          stubborn: env.fixture('stubborn', ['--ignore-sigterm', '--ignore-stdin-end']),
        },
      });
      // The command runs in this process, so the check below comes the moment it returns: a
      // separate CLI process's own exit would hide most of the window between the daemon
      // hanging up and its process ending.
      let said = '';
      const io = { out: (t: string) => (said += t), err: (t: string) => (said += t) };
      const quiet = { ...io, stdoutIsTTY: false, stderrIsTTY: false };
      for (const command of ['stop', 'restart', 'stop', 'restart']) {
        const daemon = await env.startDaemon();
        const servers = await env.untilServers((m) => isReady(m.get('stubborn')), 'Ready');
        const server = servers.get('stubborn')?.status.pid ?? -1;
        env.trackPid(server);
        said = '';
        const r = await run(['node', 'mcpctl', '--socket', env.socket, command], quiet);
        const daemonRuns = isAlive(daemon.pid);
        const serverRuns = isAlive(server);
        assert.equal(r.code, 0, `${command}: ${said}`);
        assert.match(said, new RegExp(`pid ${daemon.pid}\\) at .* stopped`));
        assert.ok(!daemonRuns, `${command} returned while the daemon ${daemon.pid} runs`);
        assert.ok(!serverRuns, `${command} returned while its server ${server} runs`);
        await daemon.exited;
      }
    },
  );

  it('a daemon that hangs up but keeps running: stop fails, naming its pid', T, async () => {
    // A stand-in daemon: answers daemon.stop with the pid of a process that never exits, and
    // hangs up at once, as a daemon stuck after closing its socket would.
    const stuck = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], {
      stdio: 'ignore',
    });
    const pid = stuck.pid ?? -1;
    env.trackPid(pid);
    mkdirSync(path.dirname(env.socket), { recursive: true, mode: 0o700 });
    const fake = createServer((socket) => {
      socket.once('data', (line) => {
        const { id } = JSON.parse(line.toString()) as { id: number };
        socket.end(`${JSON.stringify({ jsonrpc: '2.0', id, result: { pid } })}\n`);
      });
    });
    await new Promise<void>((resolve) => fake.listen(env.socket, resolve));
    try {
      const r = await env.cli(['stop'], { timeoutMs: 60_000 });
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, new RegExp(`pid ${pid}\\).*still runs.*kill ${pid}`));
      assert.ok(isAlive(pid), 'stop signals nothing itself');
    } finally {
      await new Promise((resolve) => fake.close(resolve));
      stuck.kill('SIGKILL');
    }
  });
});
