/**
 * Where the daemon's Unix socket lives, and keeping that place private (DESIGN §5 "Private
 * socket", §7).
 *
 * Guarantees:
 * - `resolveSocketPath`: `--socket`, else `$MCPCTL_SOCKET`, else
 *   `$XDG_RUNTIME_DIR/mcpctl/mcpctl.sock`, else `~/.mcpctl/mcpctl.sock`; always absolute, so the
 *   daemon and every CLI call agree whatever their working directory. Empty values count as
 *   unset; a relative XDG_RUNTIME_DIR is ignored (as the XDG spec says); an empty or relative
 *   HOME is refused with a clear error, never turned into a relative socket path.
 * - `prepareSocketDir` creates a missing directory with mode 0700 and refuses (SocketDirError)
 *   a path that is not a directory, is owned by another user, or is group/world writable. It
 *   never changes an existing directory: that is the user's to fix, and the error says how —
 *   never by changing the mode of a shared (sticky) directory such as /tmp.
 * - `checkSocketPlace` is the clients' side of the same rule (issue 31): before a byte goes to
 *   the socket (a command's request, serve's `gateway.open` with the agent's environment), the
 *   directory must pass the very checks `prepareSocketDir` makes, and what is at the path must
 *   be a socket (not a symbolic link, not another file) owned by this user that others cannot
 *   connect to, as the daemon makes it (0600). Else UnsafeSocketError (a CliError: exit 1)
 *   says which path, what is wrong and the fix. Nothing at the path, or no directory, passes:
 *   connecting then fails as it always did (no daemon).
 * - `probeSocket` tells a live daemon from a stale socket file (nobody answers) from nothing,
 *   without sending a byte.
 * - Beside the socket, and named only here: the pool's record of its children (`stateFileOf`)
 *   and the log of a daemon mcpctl started (`daemonLogPath`).
 */
import { lstatSync, mkdirSync, readlinkSync, type Stats } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CliError } from '../errors.js';

export const SOCKET_ENV = 'MCPCTL_SOCKET';

/** Linux's sun_path holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

export interface SocketPathInputs {
  /** The `--socket` flag. */
  readonly flag?: string | undefined;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly home?: string;
  readonly cwd?: string;
}

/** @throws CliError when no absolute place can be found (HOME empty or relative, see below). */
export function resolveSocketPath(inputs: SocketPathInputs = {}): string {
  const env = inputs.env ?? process.env;
  const cwd = inputs.cwd ?? process.cwd();
  const given = nonEmpty(inputs.flag) ?? nonEmpty(env[SOCKET_ENV]);
  if (given !== undefined) return path.resolve(cwd, given);
  // The XDG base-directory spec: a relative path in these variables is invalid and ignored.
  const runtime = nonEmpty(env.XDG_RUNTIME_DIR);
  if (runtime !== undefined && path.isAbsolute(runtime))
    return path.join(runtime, 'mcpctl', 'mcpctl.sock');
  return path.join(homeDirectory(inputs.home), '.mcpctl', 'mcpctl.sock');
}

/**
 * The user's home (`$HOME`, as `os.homedir()` reads it), which must be absolute: an empty or
 * relative HOME would put the socket, the settings and the approvals somewhere under whatever
 * the working directory happens to be.
 * @throws CliError saying what HOME is and what to do.
 */
export function homeDirectory(home: string = os.homedir()): string {
  if (path.isAbsolute(home)) return home;
  throw new CliError(
    `HOME is ${home === '' ? 'empty' : `${JSON.stringify(home)}, not an absolute path`}; set HOME to your home directory (mcpctl keeps its socket, and reads settings and approvals, under it), or pass --socket`,
  );
}

/** The file where the pool records its children, so a restarted daemon can reap them. */
export function stateFileOf(socketPath: string): string {
  return `${socketPath}.children.json`;
}

/** The servers' catalogs (issue #34), a folder beside the socket: private like it. */
export function catalogDirOf(socketPath: string): string {
  return `${socketPath}.catalogs`;
}

export const DAEMON_LOG_NAME = 'mcpctl-daemon.log';

/** The log of a daemon started by mcpctl (serve, restart), beside its socket. */
export function daemonLogPath(socket: string): string {
  return path.join(path.dirname(socket), DAEMON_LOG_NAME);
}

/** Where to put the socket instead of a directory that is not private (after "put it…"). */
const OWN_DIR = `in a directory of your own: pass --socket PATH or set ${SOCKET_ENV}=PATH, e.g. ~/.mcpctl/mcpctl.sock (mcpctl creates a missing directory with mode 0700)`;

export class SocketDirError extends Error {
  override name = 'SocketDirError';
}

/**
 * Makes sure the socket's directory exists and is private to this user.
 * @throws SocketDirError with what is wrong and how to fix it.
 */
export function prepareSocketDir(socketPath: string): void {
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new SocketDirError(
      `socket path ${socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes, which Unix sockets cannot use; pass a shorter --socket`,
    );
  const dir = path.dirname(socketPath);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new SocketDirError(`cannot create socket directory ${dir}: ${(err as Error).message}`);
  }
  checkSocketDir(dir, lstatSync(dir), process.getuid?.());
}

/** Why `dir` (its lstat `st`) is not a private directory of user `uid`, thrown; or nothing. */
function checkSocketDir(dir: string, st: Stats, uid: number | undefined): void {
  if (!st.isDirectory())
    throw new SocketDirError(`socket directory ${dir} is not a directory; pass another --socket`);
  if (uid !== undefined && st.uid !== uid)
    throw new SocketDirError(
      `socket directory ${dir} is owned by uid ${st.uid}, not by you (uid ${uid}); refusing to use it. Put the socket ${OWN_DIR}`,
    );
  if ((st.mode & 0o022) !== 0) {
    const who = st.mode & 0o002 ? 'everyone' : 'its group';
    const mode = (st.mode & 0o7777).toString(8);
    // A sticky directory (/tmp, /var/tmp, /dev/shm) is shared by design: changing its mode
    // would break everyone else using it, so the only advice is a directory of one's own.
    if ((st.mode & 0o1000) !== 0)
      throw new SocketDirError(
        `socket directory ${dir} is a shared directory (writable by ${who}, sticky, mode ${mode}, like /tmp); mcpctl never puts its socket in one. Put the socket ${OWN_DIR}`,
      );
    throw new SocketDirError(
      `socket directory ${dir} is writable by ${who} (mode ${mode}); refusing to use it. If only you use ${dir}, run 'chmod 700 ${dir}'; otherwise put the socket ${OWN_DIR}`,
    );
  }
}

/** A socket a client must not talk to: whoever listens there may not be this user's daemon. */
export class UnsafeSocketError extends CliError {
  override name = 'UnsafeSocketError';
}

/**
 * Checks, before a client sends anything, that `socketPath` is where only this user's daemon
 * can listen (see the guarantees). `uid` is the user's (tests pass another).
 * @throws UnsafeSocketError naming the path, what is wrong and the fix.
 */
export function checkSocketPlace(socketPath: string, uid = process.getuid?.()): void {
  if (uid === undefined) return; // No owners to compare (Windows has no Unix sockets anyway).
  const dir = path.dirname(socketPath);
  const refuse = (what: string) =>
    new UnsafeSocketError(
      `mcpctl refuses to connect to ${socketPath}, so nothing (no request, no environment) was sent there: ${what}`,
    );
  let dirStat: Stats;
  try {
    dirStat = lstatSync(dir);
  } catch {
    return; // No directory, so no socket: the connect says there is no daemon.
  }
  try {
    checkSocketDir(dir, dirStat, uid);
  } catch (err) {
    if (err instanceof SocketDirError) throw refuse(err.message);
    throw err;
  }
  let st: Stats;
  try {
    st = lstatSync(socketPath);
  } catch {
    return; // Nothing there: the connect says there is no daemon.
  }
  if (st.isSymbolicLink())
    throw refuse(
      `it is a symbolic link (to ${JSON.stringify(linkTarget(socketPath))}), and the daemon's socket never is; pass the real socket's path to --socket (or set ${SOCKET_ENV})`,
    );
  if (!st.isSocket())
    throw refuse(
      `it is not a socket but ${st.isFile() ? 'a regular file' : st.isDirectory() ? 'a directory' : 'another kind of file'}; remove it or pass another --socket`,
    );
  if (st.uid !== uid)
    throw refuse(
      `the socket is owned by uid ${st.uid}, not by you (uid ${uid}), so it is not your daemon's; pass your own --socket (or set ${SOCKET_ENV})`,
    );
  if ((st.mode & 0o022) !== 0) {
    const mode = (st.mode & 0o777).toString(8);
    throw refuse(
      `the socket is writable by ${st.mode & 0o002 ? 'everyone' : 'its group'} (mode ${mode}), and the daemon makes its socket 0600, so another program listens there; stop it, or pass another --socket`,
    );
  }
}

function linkTarget(file: string): string {
  try {
    return readlinkSync(file);
  } catch {
    return '?';
  }
}

/** `notSocket`: something else sits at the path; never removed on the user's behalf. */
export type SocketProbe = 'live' | 'stale' | 'missing' | 'notSocket';

/** Is a daemon answering at `socketPath`? Connects and hangs up at once. */
export async function probeSocket(socketPath: string, timeoutMs = 2000): Promise<SocketProbe> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(socketPath).isSocket();
  } catch {
    return 'missing';
  }
  if (!isSocket) return 'notSocket';
  return new Promise<SocketProbe>((resolve) => {
    const sock = connect(socketPath);
    const timer = setTimeout(() => {
      // No answer yet is not proof of death: a busy daemon must never lose its socket.
      sock.destroy();
      resolve('live');
    }, timeoutMs);
    sock.once('connect', () => {
      clearTimeout(timer);
      sock.destroy();
      resolve('live');
    });
    sock.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // Only a refused connection proves nobody listens; anything else may be a live daemon.
      resolve(err.code === 'ENOENT' ? 'missing' : err.code === 'ECONNREFUSED' ? 'stale' : 'live');
    });
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
