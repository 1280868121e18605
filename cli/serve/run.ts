/**
 * The `mcpctl serve` process. With a daemon (the default) it is a pipe between the agent's
 * stdio and the agent's gateway in the daemon (pipe.ts); with `--no-daemon` the controller and
 * the gateway run here, on stdio.
 *
 * Guarantees:
 * - stdout carries only MCP messages (the gateway's, through the daemon or our stdio
 *   transport, stdio-transport.ts); every log line of ours goes to stderr, the daemon's to its
 *   log file.
 * - With a daemon, the session is opened before any MCP flows, and held by serve's connection:
 *   when this process ends, the daemon closes the gateway and releases the hold.
 * - A serve started by mcpctl itself (its entry is in a file mcpctl reads) serves nothing (no
 *   tools, not even the meta tools its `--meta-tools` asks for) and contacts no daemon; see
 *   cli/agent/inert-port.ts. The controllers serve runs (in-process, or a daemon
 *   it starts) mark the environment of their servers for that.
 * - With a daemon, the agent's session outlives it: when the daemon goes away (crashed,
 *   killed, stopped, restarted) serve brings one back and restores the session (keeper.ts).
 * - It ends when stdin ends or closes (the client went away) or on SIGINT/SIGTERM; it then
 *   closes the gateway (and, without a daemon, the session and pool with every server
 *   process) and resolves with the exit code: 0, or 1 when the daemon ended this connection
 *   on purpose while it runs on.
 */
// The one module, not the api/ barrel: serve's pipe starts without loading the schemas.
import { sessionFlagsOf, type SessionFlags } from '../../api/session-flags.js';
import type { MetaToolsMode } from '../../gateway/index.js';
import { VERSION } from '../version.js';
import { daemonLogPath } from '../rpc/socket-path.js';
import { connectOrStartDaemon } from './daemon-link.js';
import { stderrSink } from '../progress.js';
import { ownEnv } from './daemon-env.js';
import { INSIDE_MCPCTL_ENV } from '../agent/inert-port.js';
import { runPipe } from './pipe.js';

/** The flags (SessionFlags): workspace an existing directory, every path absolute. */
export interface ServeOptions extends SessionFlags {
  readonly socket: string;
  readonly debounceMs?: number;
  /** False: `--no-daemon`. */
  readonly daemon: boolean;
  readonly metaTools: MetaToolsMode;
  /** How long a daemon that answers nothing is waited for (0: forever); see pipe.ts. */
  readonly answerTimeoutMs: number;
}

const log = (message: string): void => {
  process.stderr.write(`mcpctl serve: ${message}\n`);
};

export async function runServe(o: ServeOptions): Promise<number> {
  // For a gateway in this process; with a daemon, serve sends metaTools in gateway.open.
  const gatewayOptions = () => ({ version: VERSION, log, metaTools: o.metaTools });
  // The gateway and the controller load only when they run here: with a daemon (the usual
  // case) serve is a pipe, and an agent waits for it to start at the start of every session.
  const startedBy = process.env[INSIDE_MCPCTL_ENV];
  if (startedBy) {
    const reason = `this mcpctl serve was started by mcpctl itself (${startedBy}) because its entry is in a config file mcpctl reads; it serves no tools, since mcpctl never proxies itself`;
    log(reason);
    const { serveInert } = await import('./in-process.js');
    // Nothing at all, whatever its flags (cli/agent/gateway.ts: an inert gateway has no meta
    // tools).
    return serveInert(reason, gatewayOptions());
  }
  if (!o.daemon) {
    // Inherited by every server the in-process controller starts (see cli/agent/inert-port.ts).
    process.env[INSIDE_MCPCTL_ENV] = `mcpctl serve --no-daemon, pid ${process.pid}`;
    const { serveInProcess } = await import('./in-process.js');
    return serveInProcess(
      {
        ...sessionFlagsOf(o),
        ...(o.debounceMs === undefined ? {} : { debounceMs: o.debounceMs }),
        log,
      },
      gatewayOptions(),
    );
  }
  const link = {
    socket: o.socket,
    ...sessionFlagsOf(o),
    ...(o.debounceMs === undefined ? {} : { debounceMs: o.debounceMs }),
    answerTimeoutMs: o.answerTimeoutMs,
    log,
    // A person running serve in a terminal sees what it waits for; an agent's pipe sees nothing.
    progress: stderrSink,
  };
  const socket = await connectOrStartDaemon(link);
  return runPipe(socket, {
    socketPath: o.socket,
    answerTimeoutMs: o.answerTimeoutMs,
    logFile: daemonLogPath(o.socket),
    params: {
      workspace: o.workspace,
      ...(o.ceiling ? { ceiling: o.ceiling } : {}),
      ...(o.mcpConfigPath ? { mcpConfig: o.mcpConfigPath } : {}),
      ...(o.lspCeiling ? { lspCeiling: o.lspCeiling } : {}),
      ...(o.lspConfigPath ? { lspConfig: o.lspConfigPath } : {}),
      // The agent's environment: its ${VAR}s are what the config files mean, and what its
      // servers start in (DESIGN §5).
      env: ownEnv(),
      pid: process.pid,
      metaTools: o.metaTools,
    },
    // The same daemon again, or a new one after it went away (the first serve to find none
    // starts it, with this serve's workspace, ceilings and config files).
    connect: () => connectOrStartDaemon(link),
    stdin: process.stdin,
    stdout: process.stdout,
    log,
  });
}
