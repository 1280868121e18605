/**
 * What every client command shares: global flags resolved once (socket, session selector,
 * secrets), where output goes, and one way to talk to the daemon with uniform errors.
 *
 * Guarantees:
 * - No daemon at the socket → CliError with exactly `no mcpctl daemon at <socket>; start one
 *   with 'mcpctl daemon'` (exit 1).
 * - A daemon error arrives as a CliError carrying the daemon's message (exit 1); a daemon that
 *   goes away mid-call says so and where its log is; one that knows no method we call is
 *   older than this mcpctl, and the message says to run `mcpctl stop`.
 * - A daemon that answers nothing for the answer timeout (--answer-timeout,
 *   $MCPCTL_ANSWER_TIMEOUT, default 10 s) while a call waits is given up on: exit 1 with its
 *   pid, the socket, and what to do (daemon-liveness.ts). Long calls of a daemon that is alive
 *   are not cut short (cli/rpc/client.ts).
 * - The connection is closed when the command is done, whatever happened.
 * - `terminalSafeIo` is the one door of every command's output: control characters that are
 *   not our own colours are escaped there (output/escape.ts), whatever printed them.
 * - A session-scoped command (`withSession`) run outside every session's folder says on
 *   stderr which session it acts on (the daemon's default one); one whose folder has several
 *   sessions and no `--session` says on stderr (one line) how many, which one it shows, and
 *   `--session`/`-A`; and it says on stderr which of the session's files do not parse or
 *   validate (unless the command says it itself). Never on stdout.
 */
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Selector } from './methods/context.js';
import type { SessionResolved } from './methods/sessions.js';
import { severalSessionsLine } from './methods/session-names.js';
import { CliError, noDaemonMessage } from './errors.js';
import { answerTimeoutMs } from './answer-timeout.js';
import { notAnsweringMessage, silenceOf } from './daemon-liveness.js';
import {
  AnswerTooLargeError,
  ConnectionLostError,
  DaemonNotAnsweringError,
  DaemonUnavailableError,
  RpcCallError,
  connectClient,
  type RpcClient,
} from './rpc/client.js';
import { RpcCodes } from './rpc/protocol.js';
import { resolveSocketPath } from './rpc/socket-path.js';
import { VERSION } from './version.js';
import { escapeText } from './output/escape.js';
import { styleFor, type Style } from './output/style.js';
import { stderrSink, type ProgressSink } from './progress.js';

/** Flags every command accepts (DESIGN §7). */
export interface GlobalOptions {
  socket?: string;
  workspace?: string;
  /** `--session NAME`: a session id as `get sessions` prints it, or a unique prefix. */
  session?: string;
  showSecrets?: boolean;
  /** `--answer-timeout`: how long a silent daemon is waited for (answer-timeout.ts). */
  answerTimeout?: string;
}

/** Where a command writes; process streams in production, buffers in tests. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  /**
   * Raw stderr for the progress line only (output/progress.ts: our own `\r` and erase codes,
   * its text escaped there); absent: no progress line.
   */
  readonly progress?: ProgressSink;
}

/** `io`'s progress sink, or one that is no terminal (shows nothing). */
export function progressSink(io: Io): ProgressSink {
  return io.progress ?? { isTTY: false, write: () => undefined };
}

export const processIo: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  get stdoutIsTTY() {
    return process.stdout.isTTY === true;
  },
  get stderrIsTTY() {
    return process.stderr.isTTY === true;
  },
  progress: stderrSink,
};

/**
 * `io` with every write escaped: text from configs, servers and the daemon cannot drive the
 * terminal. Our own colour codes pass only on a stream that gets colour at all.
 */
export function terminalSafeIo(io: Io): Io {
  const outColour = styleFor({ isTTY: io.stdoutIsTTY }).enabled;
  const errColour = styleFor({ isTTY: io.stderrIsTTY }).enabled;
  return {
    out: (text) => io.out(escapeText(text, { keepOwnSgr: outColour })),
    err: (text) => io.err(escapeText(text, { keepOwnSgr: errColour })),
    get stdoutIsTTY() {
      return io.stdoutIsTTY;
    },
    get stderrIsTTY() {
      return io.stderrIsTTY;
    },
    ...(io.progress ? { progress: io.progress } : {}),
  };
}

export interface CommandEnv {
  readonly socket: string;
  readonly selector: Selector;
  readonly showSecrets: boolean;
  readonly io: Io;
  /** Colours for stdout (none unless stdout is a terminal). */
  readonly style: Style;
  now(): number;
  /** Give up on a daemon that answers nothing this long while a call waits (0: never). */
  readonly answerTimeoutMs: number;
  /** How to reach the daemon; default: connect to `socket`, never starting one. */
  readonly connect?: () => Promise<RpcClient>;
}

export function commandEnv(globals: GlobalOptions, io: Io): CommandEnv {
  return {
    socket: resolveSocketPath({ flag: globals.socket }),
    selector: {
      ...selectorOf(globals.workspace),
      ...(globals.session === undefined ? {} : { sessionId: globals.session }),
    },
    showSecrets: globals.showSecrets === true,
    io,
    style: styleFor({ isTTY: io.stdoutIsTTY }),
    now: Date.now,
    answerTimeoutMs: answerTimeoutMs(globals.answerTimeout),
  };
}

/**
 * `--workspace DIR` names a session (opened if needed; DIR must be an existing directory,
 * else a CliError says so); without it the current directory is
 * matched (or the session of a folder enclosing it), falling back to the daemon's default
 * session — which `withSession` then announces, and approve/reject refuse.
 */
export function selectorOf(workspace: string | undefined): Selector {
  if (workspace !== undefined) {
    const abs = path.resolve(workspace);
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      throw new CliError(
        `workspace ${abs} does not exist; pass an existing directory to --workspace`,
      );
    }
    // As serve and the daemon say it: a file would make a session that watches nothing real.
    if (!statSync(real).isDirectory())
      throw new CliError(
        `workspace ${abs} is not a directory; pass an existing one to --workspace`,
      );
    return { workspace: real, openIfMissing: true };
  }
  try {
    return { workspace: realpathSync(process.cwd()), openIfMissing: false };
  } catch {
    return {}; // The cwd was deleted: only the default session can be meant.
  }
}

/** Connects, runs `fn`, closes; every failure becomes a CliError. */
export async function withDaemon<T>(
  env: CommandEnv,
  fn: (client: RpcClient) => Promise<T>,
): Promise<T> {
  let client: RpcClient;
  try {
    client = await (env.connect
      ? env.connect()
      : connectClient(env.socket, undefined, { answerTimeoutMs: env.answerTimeoutMs }));
  } catch (err) {
    throw translateError(err, env.socket);
  }
  try {
    return await fn(client);
  } catch (err) {
    throw translateError(err, env.socket);
  } finally {
    await client.close();
  }
}

/** `warning: …` lines on stderr, one per file of the session that does not parse or validate. */
export function printConfigWarnings(io: Io, warnings: readonly string[]): void {
  for (const w of warnings) io.err(`warning: ${w}\n`);
}

export interface WithSessionOptions {
  /**
   * False: the command says itself what the session's files have wrong (reload and diff as
   * errors, describe in its body). Default: a warning line on stderr per broken file.
   */
  readonly configWarnings?: boolean;
}

/**
 * `withDaemon` for commands that act on one session: when the session is not the current
 * folder's (nothing matched it, so the daemon's default session is used), a line on stderr
 * says which one, and how to choose (a `--workspace` named by the user needs no such line);
 * a file of the session that does not parse or validate is a `warning:` line on stderr (so
 * `-o json` stays machine-readable), naming the file, line, fix and what is in force.
 */
export function withSession<T>(
  env: CommandEnv,
  fn: (client: RpcClient) => Promise<T>,
  options: WithSessionOptions = {},
): Promise<T> {
  return withDaemon(env, async (client) => {
    const found = await client.call<SessionResolved>('session.resolve', env.selector);
    if (found.match === 'default' && env.selector.openIfMissing !== true)
      env.io.err(
        `acting on session ${found.workspace} (the daemon's; use --workspace DIR to choose)\n`,
      );
    // Chosen by folder while the folder has several (agents' environments differ): say so.
    // An older daemon sends no folderSessions: nothing to say.
    if (env.selector.sessionId === undefined)
      env.io.err(
        severalSessionsLine(
          found.sessionId,
          found.folderSessions ?? [],
          found.folderDifference ?? '',
        ),
      );
    // An older daemon says nothing of its files: nothing to warn about.
    if (options.configWarnings !== false) printConfigWarnings(env.io, found.configWarnings ?? []);
    return fn(client);
  });
}

export function translateError(err: unknown, socket: string): unknown {
  if (err instanceof DaemonNotAnsweringError)
    return new CliError(notAnsweringMessage(socket, silenceOf(err.waitedMs)));
  if (err instanceof DaemonUnavailableError) {
    // A full queue of connections nobody accepts: the daemon is there but not taking them.
    if (err.code === 'EAGAIN')
      return new CliError(
        notAnsweringMessage(socket, 'it takes no new connections; its queue of them is full'),
      );
    if (err.code === 'EACCES')
      return new CliError(
        `permission denied connecting to ${socket}; the daemon there belongs to another user. Pass your own --socket`,
      );
    return new CliError(noDaemonMessage(socket));
  }
  if (err instanceof RpcCallError && err.code === RpcCodes.MethodNotFound)
    return new CliError(
      `the running mcpctl daemon at ${socket} is older than this mcpctl (${VERSION}; it answered: ${err.message}): run \`mcpctl stop\`, then start it again`,
    );
  if (err instanceof RpcCallError) return new CliError(err.message);
  if (err instanceof AnswerTooLargeError)
    return new CliError(
      `${err.message}; ask for less: name the servers you want (mcpctl get servers NAME…)`,
    );
  if (err instanceof ConnectionLostError && err.reason !== undefined)
    return new CliError(`the mcpctl daemon at ${socket} closed the connection: ${err.reason}`);
  if (err instanceof ConnectionLostError)
    return new CliError(
      `the mcpctl daemon at ${socket} closed the connection before answering (did it stop?); check its log, or start it again with 'mcpctl daemon'`,
    );
  return err;
}
