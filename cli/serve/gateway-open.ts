/**
 * The first line of an agent's connection, from `mcpctl serve`'s side: `gateway.open`, and the
 * daemon's answer (cli/rpc/PROTOCOL.md, "Agent connections").
 *
 * Guarantees:
 * - Resolves with the bytes that came after the answer (already MCP), the gateway protocol
 *   both sides speak and, from protocol 2, which daemon answered (`pid`, `version`). The
 *   answer itself never reaches the agent.
 * - Every failure is a GatewayOpenError (a CliError) naming the workspace, the socket, the
 *   daemon's message and its log, and saying why in `reason`, so a reconnecting serve can tell
 *   a daemon on its way out (`shutting-down`, `closed`: try again) from a refusal. The socket
 *   is destroyed then.
 * - A daemon that knows no `gateway.open` (method not found) is older than this mcpctl, and
 *   one that speaks no gateway protocol we speak is another version: the message says so and
 *   to run `mcpctl stop` (the next serve then starts a daemon of this version).
 * - A daemon that answers nothing, neither the open nor a `daemon.status` on a second
 *   connection, within `answerTimeoutMs` (stopped, wedged) is given up on, the message saying
 *   what to do (daemon-liveness.ts).
 */
import type { SessionFlags } from '../../api/index.js';
import type { Socket } from 'node:net';
import { notAnsweringMessage, silenceOf } from '../daemon-liveness.js';
import { CliError } from '../errors.js';
import { connectClient, type RpcClient } from '../rpc/client.js';
// Not from gateway-socket.ts: that is the daemon's side, and would load the gateway here.
import {
  GATEWAY_OPEN,
  GATEWAY_PROTOCOL,
  MIN_GATEWAY_PROTOCOL,
  RpcCodes,
  isObject,
} from '../rpc/protocol.js';
import { VERSION } from '../version.js';

/** The answer to gateway.open is small; a longer first line is not a daemon speaking. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The session's flags as the wire names them (`mcpConfig`, `lspConfig`: the paths). */
export interface GatewayOpenParams extends Pick<
  SessionFlags,
  'workspace' | 'ceiling' | 'lspCeiling'
> {
  readonly mcpConfig?: string;
  readonly lspConfig?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly pid: number;
  readonly metaTools: 'off' | 'add' | 'only';
  /** The gateway protocol this serve speaks (GATEWAY_PROTOCOL). */
  readonly protocol: number;
}

export interface GatewayOpenOptions {
  readonly socketPath: string;
  /**
   * While the answer is awaited, the daemon is asked for a sign of life (on a second
   * connection) every half of this; one that gives none within it is given up on (0: never).
   */
  readonly answerTimeoutMs: number;
  /** The daemon's log file, named in every message about the daemon. */
  readonly logFile: string;
  readonly params: GatewayOpenParams;
}

export interface OpenedGateway {
  /** Bytes that came after the answer: MCP from the gateway. */
  readonly rest: Buffer;
  /** The gateway protocol both sides speak. */
  readonly protocol: number;
  /** The daemon's pid and version (protocol 2 and later). */
  readonly pid?: number;
  readonly version?: string;
}

/**
 * Why an open failed: `shutting-down` and `closed` are a daemon on its way out (a new one
 * may start in a moment); the others are answers to take as they are.
 */
export type OpenFailure = 'refused' | 'shutting-down' | 'closed' | 'silent' | 'version';

export class GatewayOpenError extends CliError {
  override name = 'GatewayOpenError';
  constructor(
    message: string,
    readonly reason: OpenFailure,
  ) {
    super(message);
  }
}

/** Writes the `gateway.open` line on `socket` (connected to the daemon) and reads the answer. */
export function openGateway(socket: Socket, o: GatewayOpenOptions): Promise<OpenedGateway> {
  const fail = (what: string, reason: OpenFailure = 'refused') =>
    new GatewayOpenError(
      `mcpctl serve could not open a session for ${o.params.workspace} in the daemon at ${o.socketPath}: ${what}; see the daemon's log ${o.logFile}`,
      reason,
    );
  socket.on('error', () => undefined); // 'close' follows and says what happened.
  return new Promise<OpenedGateway>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let lifeCheck: NodeJS.Timeout | undefined;
    const done = (outcome: OpenedGateway | GatewayOpenError) => {
      if (settled) return;
      settled = true;
      clearTimeout(lifeCheck);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      if (outcome instanceof GatewayOpenError) {
        socket.destroy();
        reject(outcome);
      } else resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        chunks.push(chunk);
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES)
          done(fail(`its answer is longer than ${MAX_ANSWER_BYTES} bytes`));
        return;
      }
      chunks.push(chunk.subarray(0, nl));
      const answer = answerOf(Buffer.concat(chunks).toString('utf8'));
      if ('error' in answer) {
        if (answer.code === RpcCodes.MethodNotFound)
          done(
            new GatewayOpenError(
              `the running mcpctl daemon at ${o.socketPath} is older than this mcpctl (${VERSION}): run \`mcpctl stop\`, then start your agent again (its mcpctl serve starts a current daemon)`,
              'version',
            ),
          );
        else if (answer.code === RpcCodes.ProtocolMismatch)
          done(new GatewayOpenError(answer.error, 'version'));
        else
          done(
            fail(answer.error, answer.code === RpcCodes.ShuttingDown ? 'shutting-down' : 'refused'),
          );
        return;
      }
      const { protocol } = answer;
      if (protocol < MIN_GATEWAY_PROTOCOL || protocol > GATEWAY_PROTOCOL) {
        const who = `mcpctl ${answer.version ?? 'of another version'}${answer.pid === undefined ? '' : `, pid ${answer.pid}`}`;
        done(
          new GatewayOpenError(
            `the running mcpctl daemon at ${o.socketPath} (${who}) speaks gateway protocol ${protocol}, this mcpctl serve (${VERSION}) ${MIN_GATEWAY_PROTOCOL} to ${GATEWAY_PROTOCOL}: run \`mcpctl stop\`; the next mcpctl serve then starts a daemon of its own version`,
            'version',
          ),
        );
        return;
      }
      done({
        rest: chunk.subarray(nl + 1),
        protocol,
        ...(answer.pid === undefined ? {} : { pid: answer.pid }),
        ...(answer.version === undefined ? {} : { version: answer.version }),
      });
    };
    const onClose = () =>
      done(fail('the daemon closed the connection before it answered', 'closed'));
    // Opening may take a while (the daemon starting, the first servers settling), but a
    // daemon that answers nothing at all, even on a second connection, is stopped or wedged.
    const half = Math.max(1, Math.floor(o.answerTimeoutMs / 2));
    const checkLife = () => {
      lifeCheck = setTimeout(() => {
        void daemonAnswers(o.socketPath, half).then((alive) => {
          if (settled) return;
          if (alive !== undefined) checkLife();
          else
            done(
              new GatewayOpenError(
                `mcpctl serve could not open a session for ${o.params.workspace}: ${notAnsweringMessage(o.socketPath, silenceOf(o.answerTimeoutMs))}`,
                'silent',
              ),
            );
        });
      }, half);
    };
    if (o.answerTimeoutMs > 0) checkLife();
    socket.on('data', onData);
    socket.once('close', onClose);
    if (socket.destroyed) return onClose();
    const request = { jsonrpc: '2.0', id: 1, method: GATEWAY_OPEN, params: o.params };
    socket.write(`${JSON.stringify(request)}\n`);
  });
}

/**
 * The pid of the daemon that answers `daemon.status` at `socketPath` within `withinMs` (-1 when
 * it answers without one), or undefined when none does.
 */
export async function daemonAnswers(
  socketPath: string,
  withinMs = 1000,
): Promise<number | undefined> {
  // An answer, not a connect: a daemon being killed, or stopped, may still accept.
  let client: RpcClient | undefined;
  try {
    client = await connectClient(socketPath, 500, { answerTimeoutMs: withinMs });
    const status = await client.call<{ pid?: unknown }>('daemon.status', {});
    return typeof status.pid === 'number' ? status.pid : -1;
  } catch {
    return undefined;
  } finally {
    await client?.close().catch(() => undefined);
  }
}

type Answer =
  { ok: true; protocol: number; pid?: number; version?: string } | { error: string; code?: number };

/** The daemon's answer: accepted, or the reason it was not (with its JSON-RPC code, if any). */
function answerOf(line: string): Answer {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { error: 'its answer is not JSON' };
  }
  if (!isObject(message)) return { error: 'its answer is not a JSON-RPC response' };
  if (isObject(message.error)) {
    const { message: text, code } = message.error;
    return {
      error: typeof text === 'string' ? text : JSON.stringify(message.error),
      ...(typeof code === 'number' ? { code } : {}),
    };
  }
  if (message.id !== 1 || !isObject(message.result))
    return { error: `unexpected answer ${line.slice(0, 200)}` };
  const { protocol, pid, version } = message.result;
  return {
    ok: true,
    // A daemon from before the protocol had a number says nothing: it speaks 1.
    protocol: typeof protocol === 'number' ? protocol : 1,
    ...(typeof pid === 'number' ? { pid } : {}),
    ...(typeof version === 'string' ? { version } : {}),
  };
}
