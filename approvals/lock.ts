/**
 * A cross-process lock around read-modify-write of the approvals file.
 *
 * Guarantees:
 * - Mutual exclusion between processes (daemon, CLI, a second daemon) through a sibling lock
 *   directory `<file>.lock` (proper-lockfile: `mkdir` is atomic). The approvals file itself is
 *   never the lock, so it may be missing, and replacing it by rename does not drop the lock.
 * - A holder that died is not forever: a lock not refreshed for `staleMs` is taken over. The
 *   default wait (`timeoutMs`) is longer than `staleMs` so a waiter outlives a dead holder.
 * - Waiting gives up after `timeoutMs`, and any other failure to take the lock, rejects with
 *   `LockUnavailableError`, never with an error thrown by `fn` — callers can tell "could not
 *   lock" (nothing was attempted) from a failure of the locked work.
 * - A lock compromised while held (a stall longer than `staleMs`) never throws from a timer
 *   (that would kill the daemon); it is handed to `onCompromised`.
 */
import lockfile from 'proper-lockfile';
import { ensureParentDir } from './file-io.js';

export interface FileLockOptions {
  /** How long to wait for another holder. Default 15 s. */
  readonly timeoutMs?: number;
  /** A lock older than this is considered abandoned. Default 10 s (proper-lockfile's minimum is 2 s). */
  readonly staleMs?: number;
  readonly onCompromised?: (error: Error) => void;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 15_000;
export const DEFAULT_LOCK_STALE_MS = 10_000;

/** Taking the lock failed (held too long by someone else, or the folder is not writable). */
export class LockUnavailableError extends Error {
  constructor(lockPath: string, cause: unknown) {
    super(`could not take the lock ${lockPath}`, { cause });
    this.name = 'LockUnavailableError';
  }
}

export function lockPathOf(file: string): string {
  return `${file}.lock`;
}

export async function withFileLock<T>(
  file: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  let release: () => Promise<void>;
  try {
    await ensureParentDir(file);
    release = await lockfile.lock(file, {
      lockfilePath: lockPathOf(file),
      // The approvals file may not exist yet; the lock is keyed by its path as given.
      realpath: false,
      stale: options.staleMs ?? DEFAULT_LOCK_STALE_MS,
      retries: {
        // Short, jittered waits: a holder keeps the lock for one read and one small write.
        retries: Math.ceil(timeoutMs / 5),
        minTimeout: 5,
        maxTimeout: 100,
        factor: 1.5,
        randomize: true,
        maxRetryTime: timeoutMs,
      },
      onCompromised: (error) => options.onCompromised?.(error),
    });
  } catch (error) {
    throw new LockUnavailableError(lockPathOf(file), error);
  }
  try {
    return await fn();
  } finally {
    // After a compromise the library already dropped the lock and says so (ERELEASED); that
    // was reported through onCompromised, so there is nothing more to do here.
    await release().catch(() => undefined);
  }
}
