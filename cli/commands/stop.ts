/**
 * `mcpctl stop` and `mcpctl restart`: graceful daemon shutdown. Both return once the daemon
 * has closed every session and connection (it hangs up on us last) and its process is gone
 * (the pid `daemon.stop` answered; a zombie counts as gone), so neither a server process of it
 * nor the daemon itself outlives the command. A daemon that hung up but still runs after
 * EXIT_TIMEOUT_MS fails the command (exit 1), naming its pid and how to end it.
 *
 * What the agents' serves do (cli/rpc/PROTOCOL.md, "When the daemon goes away"):
 * - `stop`: their calls in flight fail; their sessions stay open and wait, and the next
 *   request of an agent starts a daemon again and restores its session there. Nothing comes
 *   back by itself.
 * - `restart`: they start a new daemon at once (one, however many race) and restore their
 *   sessions there: how a running daemon is replaced by the installed mcpctl. The command
 *   waits for the new daemon and names it.
 * Only `daemon.stop` is called (its `restart` param unknown to an older daemon, which stops as
 * for `stop`), so both work on a daemon of any version.
 */
import type { Command } from 'commander';
import {
  commandEnv,
  withDaemon,
  type CommandEnv,
  type GlobalOptions,
  type Io,
} from '../command-env.js';
import { processStateOf } from '../daemon-liveness.js';
import { CliError } from '../errors.js';
import { connectClient } from '../rpc/client.js';
import { daemonLogPath } from '../rpc/socket-path.js';

const STOP_TIMEOUT_MS = 120_000;
/** After it hung up, how long the daemon's process may take to exit. */
const EXIT_TIMEOUT_MS = 10_000;
/** How long `restart` waits for an agent's serve to bring a new daemon up. */
const TAKEOVER_TIMEOUT_MS = 60_000;

export function registerStop(program: Command, io: Io): void {
  program
    .command('stop')
    .description(
      "stop the daemon gracefully (every server process ends); agents' sessions wait for their next request",
    )
    .action(async (_opts: object, cmd: Command) => {
      const env = commandEnv(cmd.optsWithGlobals<GlobalOptions>(), io);
      const { pid } = await stopDaemon(env, false);
      io.out(`mcpctl daemon (pid ${pid}) at ${env.socket} stopped\n`);
    });
  program
    .command('restart')
    .description(
      "replace the daemon by one of the installed mcpctl; agents' serves start it at once and keep their sessions",
    )
    .action(async (_opts: object, cmd: Command) => {
      const env = commandEnv(cmd.optsWithGlobals<GlobalOptions>(), io);
      const { pid, agents } = await stopDaemon(env, true);
      const stopped = `mcpctl daemon (pid ${pid}) at ${env.socket} stopped`;
      if (agents === undefined) {
        io.out(
          `${stopped}; it is older than this mcpctl and told no agent: serves of this mcpctl bring a new daemon up by themselves, older ones end (restart those agents)\n`,
        );
        return;
      }
      if (agents === 0) {
        io.out(`${stopped}; no agent was connected: the next mcpctl serve starts a daemon\n`);
        return;
      }
      const next = await newDaemon(env.socket, pid);
      if (next === undefined)
        throw new CliError(
          `${stopped}, but no agent's serve brought a new daemon up within ${TAKEOVER_TIMEOUT_MS / 1000} s; see ${daemonLogPath(env.socket)}`,
        );
      io.out(`${stopped}; pid ${next} took over ${agents} agent${agents === 1 ? '' : 's'}\n`);
    });
}

/** Stops the daemon; resolves once it closed our connection. */
async function stopDaemon(
  env: CommandEnv,
  restart: boolean,
): Promise<{ pid: number; agents?: number }> {
  return withDaemon(env, async (client) => {
    const answer = await client.call<{ pid: number; agents?: unknown }>(
      'daemon.stop',
      restart ? { restart: true } : {},
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS);
    });
    const outcome = await Promise.race([client.closed.then(() => 'closed' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout')
      throw new CliError(
        `the daemon (pid ${answer.pid}) did not finish stopping within ${STOP_TIMEOUT_MS / 1000}s; check its log, or end it with 'kill ${answer.pid}'`,
      );
    if (!(await exited(answer.pid, EXIT_TIMEOUT_MS)))
      throw new CliError(
        `the daemon (pid ${answer.pid}) closed every server and hung up, but its process still runs ${EXIT_TIMEOUT_MS / 1000}s later; end it with 'kill ${answer.pid}' (or 'kill -9 ${answer.pid}'; the next start reaps whatever it left), and see ${daemonLogPath(env.socket)}`,
      );
    return {
      pid: answer.pid,
      ...(typeof answer.agents === 'number' ? { agents: answer.agents } : {}),
    };
  });
}

/** Whether process `pid` is gone (or a zombie) within `timeoutMs`; true at once for no pid. */
async function exited(pid: unknown, timeoutMs: number): Promise<boolean> {
  // An answer without a usable pid (never ours) leaves nothing to wait for.
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 1) return true;
  const deadline = Date.now() + timeoutMs;
  while (running(pid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Running = exists and, where /proc says, is not a zombie (it exited; its parent's wait is left). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    // ESRCH: gone. EPERM: the pid belongs to another user's process now, so not our daemon.
    return false;
  }
  const state = processStateOf(pid);
  return state !== 'Z' && state !== 'X';
}

/** The pid of a daemon other than `old` answering at `socket`, once one does (or undefined). */
async function newDaemon(socket: string, old: number): Promise<number | undefined> {
  const deadline = Date.now() + TAKEOVER_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      const client = await connectClient(socket, 1000, { answerTimeoutMs: 5000 });
      try {
        const { pid } = await client.call<{ pid: number }>('daemon.status');
        if (pid !== old) return pid;
      } finally {
        await client.close();
      }
    } catch {
      // Not up yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return undefined;
}
