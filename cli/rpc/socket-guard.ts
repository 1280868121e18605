/**
 * Keeping the daemon's socket file in place (issue 22): a daemon whose socket file was deleted
 * (a tmp cleaner, `rm -rf ~/.mcpctl`) still serves the agents connected to it, but no new
 * client can find it, so the next `mcpctl serve` would start a second daemon with a second
 * copy of every server, and this one would run forever.
 *
 * What it does, checked every `intervalMs` with one lstat (a watch of the directory would miss
 * the directory itself going away, and costs a handle):
 * - The file is gone → bind a new one at the same path (the directory re-made private first):
 *   the daemon stays reachable and its agents and servers are untouched. Re-creating rather
 *   than stopping is the choice because deletion is usually an accident of cleaning, and
 *   stopping would end every agent's session.
 * - Something else is at the path (another daemon's socket, any other file), or the path
 *   cannot be made ours again (the directory is not private, another daemon bound it first) →
 *   `onLost`: the path belongs to someone else now, and clients will reach them, so this
 *   daemon shuts down cleanly instead of running unreachable.
 * - Anything else (a transient error reading the path) is logged once and checked again.
 */
import { lstatSync, type Stats } from 'node:fs';
import { messageOf } from '../errors.js';
import { prepareSocketDir } from './socket-path.js';

export interface GuardedSocket {
  /** The file we listen on, as (dev, ino). */
  readonly socketFile:
    { readonly path: string; readonly dev: number; readonly ino: number } | undefined;
  /** Binds a new file at the same path; rejects when that is not possible. */
  relisten(): Promise<void>;
}

export interface SocketGuardOptions {
  readonly server: GuardedSocket;
  readonly intervalMs: number;
  readonly log: {
    warn(obj: object, msg: string): void;
  };
  /** The path is someone else's now: the daemon should stop. Called at most once. */
  readonly onLost: (reason: string) => void;
}

/** Starts checking; returns the function that stops it. */
export function guardSocketFile(o: SocketGuardOptions): () => void {
  let busy = false;
  let lost = false;
  let lastError: string | undefined;
  const lose = (reason: string) => {
    if (lost) return;
    lost = true;
    o.onLost(reason);
  };
  const check = async () => {
    const own = o.server.socketFile;
    if (busy || lost || own === undefined) return;
    busy = true;
    try {
      let st: Stats;
      try {
        st = lstatSync(own.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        try {
          prepareSocketDir(own.path);
          await o.server.relisten();
        } catch (bindErr) {
          lose(
            `its socket file ${own.path} was deleted and cannot be made again: ${messageOf(bindErr)}`,
          );
          return;
        }
        o.log.warn({ socket: own.path }, 'the socket file was deleted; made it again');
        return;
      }
      if (st.dev !== own.dev || st.ino !== own.ino)
        lose(
          `its socket path ${own.path} now holds ${st.isSocket() ? 'another socket (another daemon?)' : 'something else'}; clients reach that now`,
        );
      lastError = undefined;
    } catch (err) {
      const message = messageOf(err);
      if (message !== lastError) o.log.warn({ err: message }, 'cannot check the socket file');
      lastError = message;
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), o.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
