/**
 * The `mcpctl serve` process: one MCP server on stdio in front of a session, run by the daemon
 * (default) or in this process (`--no-daemon`).
 *
 * Guarantees:
 * - stdout carries only MCP messages (the SDK's StdioServerTransport writes there; every log
 *   line of ours goes to stderr, the daemon's to its log file).
 * - The session is opened before the MCP client is served, and held by our daemon connection:
 *   when this process ends, the daemon releases the hold and the session's leases drain.
 * - A serve started by mcpctl itself (its entry is in a file mcpctl reads) serves nothing; see
 *   inert-port.ts. The controllers serve runs (in-process, or a daemon it starts) mark the
 *   environment of their servers for that.
 * - It ends when stdin ends or closes (the client went away), on SIGINT/SIGTERM, or when the
 *   daemon connection is lost; it then closes the bridge and the port (the daemon connection,
 *   or the private session and pool with every server process) and resolves with the exit
 *   code: 0, or 1 when the daemon went away under it.
 */
import { existsSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CliError, errorText } from '../errors.js';
import { ConnectionLostError, RpcCallError, type RpcClient } from '../rpc-client.js';
import { VERSION } from '../version.js';
import { createGatewayServer } from '../../gateway/gateway.js';
import { connectOrStartDaemon, daemonLogPath } from './daemon-link.js';
import { INSIDE_MCPCTL_ENV, InertSessionPort } from './inert-port.js';
import { openPrivateSession } from './private-session.js';
import { RpcSessionPort } from './rpc-port.js';
import type { SessionPort } from '../../gateway/session-port.js';

export interface ServeOptions {
  readonly socket: string;
  /** Absolute path of an existing directory. */
  readonly workspace: string;
  readonly ceiling?: readonly string[];
  /** Absolute path. */
  readonly mcpConfigPath?: string;
  readonly debounceMs?: number;
  /** False: `--no-daemon`. */
  readonly daemon: boolean;
}

/** How long the agent's first tools/list waits for servers that are still connecting. */
const FIRST_LIST_WAIT_MS = 5000;

const log = (message: string): void => {
  process.stderr.write(`mcpctl serve: ${message}\n`);
};

export async function runServe(o: ServeOptions): Promise<number> {
  let daemonLost: Promise<void> | undefined;
  let port: SessionPort;
  const startedBy = process.env[INSIDE_MCPCTL_ENV];
  if (startedBy) {
    const reason = `this mcpctl serve was started by mcpctl itself (${startedBy}) because its entry is in a config file mcpctl reads; it serves no tools, since mcpctl never proxies itself`;
    log(reason);
    port = new InertSessionPort(reason);
  } else if (o.daemon) {
    const client = await connectOrStartDaemon({
      socket: o.socket,
      workspace: o.workspace,
      ...(o.ceiling ? { ceiling: o.ceiling } : {}),
      ...(o.mcpConfigPath ? { mcpConfigPath: o.mcpConfigPath } : {}),
      ...(o.debounceMs === undefined ? {} : { debounceMs: o.debounceMs }),
      log,
    });
    port = await attach(client, o);
    daemonLost = client.closed;
  } else {
    // Inherited by every server the in-process controller starts (see inert-port.ts).
    process.env[INSIDE_MCPCTL_ENV] = `mcpctl serve --no-daemon, pid ${process.pid}`;
    port = await openPrivateSession({
      workspace: o.workspace,
      ...(o.ceiling ? { ceiling: o.ceiling } : {}),
      ...(o.mcpConfigPath ? { mcpConfigPath: o.mcpConfigPath } : {}),
      ...(o.debounceMs === undefined ? {} : { debounceMs: o.debounceMs }),
      log,
    });
  }

  const bridge = createGatewayServer(port, {
    version: VERSION,
    log,
    firstListWaitMs: FIRST_LIST_WAIT_MS,
    workspace: o.workspace,
  }).server;
  const transport = new StdioServerTransport();
  transport.onerror = (err) => log(`bad message from the client: ${err.message}`);

  let finish: (why: { code: number; reason: string }) => void = () => undefined;
  const finished = new Promise<{ code: number; reason: string }>((resolve) => (finish = resolve));
  const onStdinEnd = () => finish({ code: 0, reason: 'stdin ended' });
  const onSignal = (signal: NodeJS.Signals) => finish({ code: 0, reason: signal });
  process.stdin.once('end', onStdinEnd);
  process.stdin.once('close', onStdinEnd);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  bridge.onclose = () => finish({ code: 0, reason: 'the MCP connection closed' });
  void daemonLost?.then(() =>
    finish({
      code: 1,
      reason: `the mcpctl daemon at ${o.socket} went away (see ${daemonLogPath(o.socket)}); restart this MCP server to reconnect`,
    }),
  );

  try {
    await bridge.connect(transport);
  } catch (err) {
    finish({ code: 1, reason: `cannot serve on stdio: ${errorText(err)}` });
  }
  const outcome = await finished;
  if (outcome.code !== 0) log(outcome.reason);
  process.stdin.off('end', onStdinEnd);
  process.stdin.off('close', onStdinEnd);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  bridge.onclose = undefined;
  await bridge.close().catch((err: unknown) => log(`closing the bridge: ${errorText(err)}`));
  await port.close().catch((err: unknown) => log(`closing the session: ${errorText(err)}`));
  return outcome.code;
}

/** This process's environment as plain strings (the agent's, inherited by `mcpctl serve`). */
function agentEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return out;
}

/** Opens (or joins) the workspace's session in the daemon and subscribes to it. */
async function attach(client: RpcClient, o: ServeOptions): Promise<SessionPort> {
  try {
    const { sessionId } = await client.call<{ sessionId: string }>('session.open', {
      workspace: o.workspace,
      ...(o.ceiling ? { ceiling: o.ceiling } : {}),
      ...(o.mcpConfigPath ? { mcpConfig: o.mcpConfigPath } : {}),
      // The agent's environment: its ${VAR}s are what the config files mean (DESIGN §5).
      env: agentEnv(),
      pid: process.pid,
    });
    return await RpcSessionPort.attach(client, sessionId);
  } catch (err) {
    await client.close();
    if (!(err instanceof RpcCallError || err instanceof ConnectionLostError)) throw err;
    const logFile = daemonLogPath(o.socket);
    const seeLog = existsSync(logFile) ? `; the daemon's log is ${logFile}` : '';
    throw new CliError(
      `mcpctl serve could not open a session for ${o.workspace} in the daemon at ${o.socket}: ${err.message}${seeLog}`,
    );
  }
}
