/**
 * One daemon at a time claims a socket path. Daemons that start together after a crash (every
 * agent's serve brings one back) all find the dead daemon's stale socket file; without a turn
 * each, two could both remove it and listen, the second removing the first's new socket
 * before the first noted it as its own — two daemons that each believe the path is theirs.
 * With the lock, probe, removal of a stale file, listen and noting the file are one step: a
 * daemon that comes second finds a live socket and exits ("already running").
 *
 * Guarantees:
 * - The lock is a directory next to the socket (`mkdir` is atomic) holding the holder's pid;
 *   `claimLock` resolves with the function that gives it back, and takes it over from a holder
 *   that died with it (its pid is gone, or the lock is older than STALE_MS: a claim takes
 *   milliseconds).
 * - Waiting is bounded (`waitMs`); past it the claim goes ahead without the lock, as it did
 *   before there was one, rather than never starting.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A lock this old was left by a daemon that died while claiming. */
const STALE_MS = 10_000;
const RETRY_MS = 20;

export function claimLockPath(socketPath: string): string {
  return `${socketPath}.claim`;
}

export async function claimLock(socketPath: string, waitMs = 15_000): Promise<() => void> {
  const lock = claimLockPath(socketPath);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      mkdirSync(lock, { mode: 0o700 });
      writeFileSync(path.join(lock, 'pid'), `${process.pid}\n`);
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return () => undefined;
    }
    if (isStale(lock)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) return () => undefined;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

function isStale(lock: string): boolean {
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_MS) return true;
    const pid = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 && !isRunning(pid);
  } catch {
    return false; // Gone meanwhile, or its pid not written yet: the next try decides.
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
