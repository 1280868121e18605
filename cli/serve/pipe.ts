/**
 * `mcpctl serve` with a daemon: a pipe between the agent's stdio and the agent's gateway in the
 * daemon. One line opens it (`gateway.open`, cli/PROTOCOL.md); after the daemon's answer the
 * connection carries MCP, and serve copies bytes both ways without looking at them.
 *
 * Guarantees:
 * - stdout carries only what the daemon sent after its answer to `gateway.open` (that answer
 *   itself is never written there); every word of ours goes to stderr.
 * - A refusal (or a daemon that closes or garbles its answer) is a CliError naming the
 *   workspace, the socket, the daemon's message and its log: exit 1, nothing on stdout. A
 *   daemon that knows no `gateway.open` (method not found) is older than this mcpctl: the
 *   message says so and to run `mcpctl stop`. A daemon that answers nothing, neither the open
 *   nor a `daemon.status` on a second connection, within `answerTimeoutMs` (stopped, wedged)
 *   is given up on the same way, the message saying what to do (daemon-liveness.ts).
 * - Copying is bytes only, with backpressure both ways (Node's pipe): no parsing, no buffering
 *   beyond the streams' own.
 * - It ends with 0 when stdin ends (the socket is ended, and the daemon's close awaited for at
 *   most STDIN_END_GRACE_MS) or on SIGINT/SIGTERM; with 1, and a line on stderr naming the
 *   socket and the daemon's log, when the daemon closes the connection first (saying whether
 *   the daemon went away or only ended this connection).
 */
import type { Socket } from 'node:net';
import { notAnsweringMessage, silenceOf } from '../daemon-liveness.js';
import { CliError } from '../errors.js';
import { connectClient, type RpcClient } from '../rpc-client.js';
// Not from gateway-socket.ts: that is the daemon's side, and would load the gateway here.
import { GATEWAY_OPEN, RpcCodes, isObject } from '../rpc-protocol.js';
import { VERSION } from '../version.js';

/** How long serve waits for the daemon to close after stdin ended. */
const STDIN_END_GRACE_MS = 1000;
/** The answer to gateway.open is small; a longer first line is not a daemon speaking. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface GatewayOpenParams {
  readonly workspace: string;
  readonly ceiling?: readonly string[];
  readonly mcpConfig?: string;
  readonly env: Readonly<Record<string, string>>;
  readonly pid: number;
  readonly metaTools: 'off' | 'add' | 'only';
}

export interface PipeOptions {
  readonly socketPath: string;
  /**
   * While the answer to `gateway.open` is awaited, the daemon is asked for a sign of life (on
   * a second connection) every half of this; one that gives none within it is given up on
   * (0: wait forever).
   */
  readonly answerTimeoutMs: number;
  /** The daemon's log file, named in every message about the daemon. */
  readonly logFile: string;
  readonly params: GatewayOpenParams;
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly log: (message: string) => void;
}

/** Opens the gateway on `socket` (connected to the daemon), then pipes until one side ends. */
export async function runPipe(socket: Socket, o: PipeOptions): Promise<number> {
  socket.on('error', () => undefined); // 'close' follows and says what happened.
  const rest = await openGateway(socket, o);
  if (rest.length > 0) o.stdout.write(rest);

  return new Promise<number>((resolve) => {
    let stdinEnded = false;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      o.stdin.off('end', onStdinEnd);
      o.stdin.off('close', onStdinEnd);
      o.stdin.unpipe(socket);
      o.stdin.pause();
      socket.unpipe();
      socket.destroy();
      resolve(code);
    };
    const onStdinEnd = () => {
      if (stdinEnded) return;
      stdinEnded = true;
      socket.end(); // The agent went away: so does its gateway.
      timer = setTimeout(() => finish(0), STDIN_END_GRACE_MS);
    };
    const onSignal = () => finish(0);
    socket.once('close', () => {
      if (stdinEnded) return finish(0);
      void daemonAnswers(o.socketPath).then((alive) => {
        const what = alive ? 'ended this connection' : 'went away';
        o.log(
          `the mcpctl daemon at ${o.socketPath} ${what} (see ${o.logFile}); restart this MCP server to reconnect`,
        );
        finish(1);
      });
    });
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    o.stdin.once('end', onStdinEnd);
    o.stdin.once('close', onStdinEnd);
    socket.pipe(o.stdout, { end: false });
    o.stdin.pipe(socket, { end: false });
  });
}

/** Whether a daemon at `socketPath` answers within `withinMs` (it closed only our connection). */
async function daemonAnswers(socketPath: string, withinMs = 1000): Promise<boolean> {
  // An answer, not a connect: a daemon being killed, or stopped, may still accept.
  let client: RpcClient | undefined;
  try {
    client = await connectClient(socketPath, 500, { answerTimeoutMs: withinMs });
    await client.call('daemon.status', {});
    return true;
  } catch {
    return false;
  } finally {
    await client?.close().catch(() => undefined);
  }
}

/**
 * Writes the `gateway.open` line and reads the daemon's answer. Resolves with the bytes that
 * came after the answer (already MCP); a refusal rejects with a CliError.
 */
function openGateway(socket: Socket, o: PipeOptions): Promise<Buffer> {
  const fail = (what: string) =>
    new CliError(
      `mcpctl serve could not open a session for ${o.params.workspace} in the daemon at ${o.socketPath}: ${what}; see the daemon's log ${o.logFile}`,
    );
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let lifeCheck: NodeJS.Timeout | undefined;
    const done = (outcome: { rest: Buffer } | { error: CliError }) => {
      if (settled) return;
      settled = true;
      clearTimeout(lifeCheck);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      if ('rest' in outcome) resolve(outcome.rest);
      else {
        socket.destroy();
        reject(outcome.error);
      }
    };
    const onData = (chunk: Buffer) => {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        chunks.push(chunk);
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES)
          done({ error: fail(`its answer is longer than ${MAX_ANSWER_BYTES} bytes`) });
        return;
      }
      chunks.push(chunk.subarray(0, nl));
      const answer = answerOf(Buffer.concat(chunks).toString('utf8'));
      if ('error' in answer)
        done({
          error:
            answer.code === RpcCodes.MethodNotFound
              ? new CliError(
                  `the running mcpctl daemon at ${o.socketPath} is older than this mcpctl (${VERSION}): run \`mcpctl stop\`, then start your agent again (its mcpctl serve starts a current daemon)`,
                )
              : fail(answer.error),
        });
      else done({ rest: chunk.subarray(nl + 1) });
    };
    const onClose = () =>
      done({ error: fail('the daemon closed the connection before it answered') });
    // Opening may take a while (the daemon starting, the first servers settling), but a
    // daemon that answers nothing at all, even on a second connection, is stopped or wedged.
    const half = Math.max(1, Math.floor(o.answerTimeoutMs / 2));
    const checkLife = () => {
      lifeCheck = setTimeout(() => {
        void daemonAnswers(o.socketPath, half).then((alive) => {
          if (settled) return;
          if (alive) checkLife();
          else
            done({
              error: new CliError(
                `mcpctl serve could not open a session for ${o.params.workspace}: ${notAnsweringMessage(o.socketPath, silenceOf(o.answerTimeoutMs))}`,
              ),
            });
        });
      }, half);
    };
    if (o.answerTimeoutMs > 0) checkLife();
    socket.on('data', onData);
    socket.once('close', onClose);
    const request = { jsonrpc: '2.0', id: 1, method: GATEWAY_OPEN, params: o.params };
    socket.write(`${JSON.stringify(request)}\n`);
  });
}

/** The daemon's answer: accepted, or the reason it was not (with its JSON-RPC code, if any). */
function answerOf(line: string): { ok: true } | { error: string; code?: number } {
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
  return { ok: true };
}
