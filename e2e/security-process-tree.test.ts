/**
 * e2e (hardening #13, Low 14): a server's descendant that leaves its process group with
 * `setsid` (node's `detached: true`) must not outlive the server — not after `mcpctl stop`,
 * not after the server is removed from the config, not after the daemon was SIGKILLed and
 * started again (the orphan reaper), also when it was killed before it ever saw the grandchild.
 *
 * The fixture server starts such a grandchild and writes its pid to a file. Its command line
 * does not mention the temp dir, so every test hands the pid to the harness for cleanup.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { stateFileOf } from '../cli/rpc/socket-path.js';
import { TestEnv, isAlive, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

/** The grandchild's pid, once the fixture wrote it; registered for cleanup. */
async function escapedPid(env: TestEnv, file: string): Promise<number> {
  const pid = await until('the grandchild pid file', () => {
    try {
      const n = Number(readFileSync(file, 'utf8'));
      return n > 0 ? n : undefined;
    } catch {
      return undefined;
    }
  });
  env.trackPid(pid);
  assert.ok(isAlive(pid));
  // It really left: a group of its own, which a signal to the server's group does not reach.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  assert.equal(pgrp, pid, 'the grandchild leads its own process group');
  return pid;
}

function gone(pid: number, what: string): Promise<true> {
  return until(what, () => !isAlive(pid), { timeoutMs: 15_000 });
}

describe('security: a setsid grandchild ends with its server (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('mcpctl stop ends it', T, async () => {
    const file = env.pidFile('escaped');
    env.write(env.userSettingsPath, {
      mcpServers: { fx: env.fixture('fx', [`--detached-grandchild-pid-file=${file}`]) },
    });
    const daemon = await env.startDaemon();
    await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
    const pid = await escapedPid(env, file);
    const stop = await env.cli(['stop'], { timeoutMs: 30_000 });
    assert.equal(stop.code, 0, stop.stderr);
    await daemon.exited;
    await gone(pid, 'the setsid grandchild to end with the daemon');
  });

  it('removing its server from the config ends it', T, async () => {
    const file = env.pidFile('escaped');
    env.write(env.userSettingsPath, {
      mcpServers: {
        fx: env.fixture('fx', [`--detached-grandchild-pid-file=${file}`]),
        other: env.fixture('other'),
      },
    });
    // The default drain delay: a removal ends the process at once anyway.
    const daemon = env.spawnDaemon(['daemon', '--workspace', env.workspace, '--debounce-ms', '50']);
    try {
      await env.untilServers((m) => isReady(m.get('fx')) && isReady(m.get('other')), 'Ready');
      const pid = await escapedPid(env, file);
      env.write(env.userSettingsPath, { mcpServers: { other: env.fixture('other') } });
      await gone(pid, 'the setsid grandchild to end with its removed server');
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });

  it('a daemon killed with SIGKILL: the next one reaps it', T, async () => {
    const file = env.pidFile('escaped');
    env.write(env.userSettingsPath, {
      mcpServers: { fx: env.fixture('fx', [`--detached-grandchild-pid-file=${file}`]) },
    });
    const first = await env.startDaemon();
    const servers = await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
    const server = servers.get('fx')?.status.pid ?? -1;
    env.trackPid(server);
    const pid = await escapedPid(env, file);
    // Recorded for the reaper once the daemon's periodic look at the tree found it.
    await until(
      'the grandchild to be in the state file',
      () => {
        try {
          const state = JSON.parse(readFileSync(stateFileOf(env.socket), 'utf8')) as {
            processes: Array<{ pid: number }>;
          };
          return state.processes.some((p) => p.pid === pid);
        } catch {
          return false;
        }
      },
      { timeoutMs: 20_000 },
    );
    first.child.kill('SIGKILL');
    await first.exited;
    assert.ok(isAlive(pid), 'it outlived the killed daemon');
    await env.startDaemon();
    await gone(pid, 'the next daemon to reap the setsid grandchild');
  });

  it('a daemon killed with SIGKILL before any scan saw it: the next one reaps it', T, async () => {
    const file = env.pidFile('escaped');
    env.write(env.userSettingsPath, {
      mcpServers: { fx: env.fixture('fx', [`--detached-grandchild-pid-file=${file}`]) },
    });
    const first = await env.startDaemon();
    const servers = await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
    env.trackPid(servers.get('fx')?.status.pid);
    const pid = await escapedPid(env, file);
    // At once: the daemon's periodic look at the tree (every 5 s) has not come yet.
    first.child.kill('SIGKILL');
    await first.exited;
    assert.ok(isAlive(pid), 'it outlived the killed daemon');
    await env.startDaemon();
    await gone(pid, 'the next daemon to reap the setsid grandchild it never recorded');
  });
});
