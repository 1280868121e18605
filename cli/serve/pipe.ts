/**
 * `mcpctl serve` with a daemon: a pipe between the agent's stdio and the agent's gateway in the
 * daemon. One line opens it (`gateway.open`, gateway-open.ts); after the daemon's answer the
 * connection carries MCP, which serve passes on line by line (keeper.ts), and keeps the
 * agent's session across daemons: when the daemon goes away, serve brings one back and
 * restores the session there.
 *
 * Guarantees:
 * - stdout carries only MCP messages: the gateway's (the answer to `gateway.open` is never
 *   written there) and serve's own answers and notifications of a restore (keeper.ts); every
 *   word of ours goes to stderr.
 * - The first open failing (a refusal, a daemon that closes, garbles its answer, says nothing,
 *   or is of another version) is a CliError naming the workspace, the socket, the daemon's
 *   message and its log: exit 1, nothing on stdout. Later, the same failure leaves the
 *   agent's session open and answers its requests with that message (keeper.ts).
 * - A daemon on its way out (shutting down, closing before it answers) is waited for, at most
 *   REOPEN_PATIENCE_MS, and a new one started once it is gone.
 */
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { GATEWAY_PROTOCOL } from '../rpc/protocol.js';
import {
  GatewayOpenError,
  daemonAnswers,
  openGateway,
  type GatewayOpenParams,
} from './gateway-open.js';
import { SessionKeeper, type Link } from './keeper.js';

export type { GatewayOpenParams } from './gateway-open.js';

/** How long a daemon that is stopping is waited for before a new one can start. */
const REOPEN_PATIENCE_MS = 60_000;
/** How often a stopping daemon is asked again. */
const REOPEN_RETRY_MS = 100;

export interface PipeOptions {
  readonly socketPath: string;
  /** How long a daemon that answers nothing is waited for (0: forever); see gateway-open.ts. */
  readonly answerTimeoutMs: number;
  /** The daemon's log file, named in every message about the daemon. */
  readonly logFile: string;
  readonly params: Omit<GatewayOpenParams, 'protocol'>;
  /** Connects to the daemon, starting one when none answers (daemon-link.ts). */
  readonly connect: () => Promise<Socket>;
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly log: (message: string) => void;
}

/** Opens the gateway on `socket` (connected to the daemon), then pipes until the agent ends. */
export async function runPipe(socket: Socket, o: PipeOptions): Promise<number> {
  const openOptions = {
    socketPath: o.socketPath,
    answerTimeoutMs: o.answerTimeoutMs,
    logFile: o.logFile,
    params: { ...o.params, protocol: GATEWAY_PROTOCOL },
  };
  const open = async (s: Socket) => {
    const opened = await openGateway(s, openOptions);
    // A daemon of protocol 1 does not say who it is: asked, so that a new daemon answering
    // after it went away is not taken for it (keeper.ts).
    if (opened.pid !== undefined) return opened;
    const pid = await daemonAnswers(o.socketPath);
    return pid === undefined ? opened : { ...opened, pid };
  };
  const first: Link = { socket, opened: await open(socket) };
  const keeper = new SessionKeeper({
    stdin: o.stdin,
    stdout: o.stdout,
    log: o.log,
    socketPath: o.socketPath,
    logFile: o.logFile,
    reopen: () => reopen(o.connect, open),
    daemonPid: () => daemonAnswers(o.socketPath),
  });
  return keeper.run(first);
}

/** Connects and opens, waiting out a daemon that is stopping (a new one starts after it). */
async function reopen(
  connect: () => Promise<Socket>,
  open: (socket: Socket) => Promise<Link['opened']>,
): Promise<Link> {
  const deadline = Date.now() + REOPEN_PATIENCE_MS;
  for (;;) {
    let socket: Socket | undefined;
    try {
      socket = await connect();
      return { socket, opened: await open(socket) };
    } catch (err) {
      socket?.destroy();
      const onItsWayOut =
        err instanceof GatewayOpenError &&
        (err.reason === 'shutting-down' || err.reason === 'closed');
      if (!onItsWayOut || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, REOPEN_RETRY_MS));
    }
  }
}
