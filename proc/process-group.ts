/**
 * Signalling and probing POSIX process groups.
 *
 * Servers are started in their own process group (DESIGN §5 "No orphans") because wrappers
 * such as `npx` and `uvx` start the real server as a grandchild: killing only the child we
 * spawned would leave the grandchild running. Signalling `-pgid` reaches all of them.
 *
 * Guarantees:
 * - Never signals pgid 0 or 1, nor our own process (a `-0` or `-1` target would hit our own
 *   group or every process we may signal); such a call throws instead.
 * - `signalGroup` and `groupAlive` never throw for a group that is already gone (ESRCH).
 * - `groupAlive` is a probe (signal 0): true while any member exists, zombies included (a
 *   zombie is gone for all practical purposes but still answers until its parent or PID 1
 *   reaps it; callers that need "really gone" wait for false with a bound).
 * - `waitFor` never leaves a timer behind and resolves whether or not the condition held.
 */

function assertSafeTarget(pgid: number): void {
  if (!Number.isInteger(pgid) || pgid <= 1 || pgid === process.pid) {
    throw new RangeError(`refusing to signal process group ${pgid}`);
  }
}

/** Sends `signal` to every process of the group; false when the group is already gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  assertSafeTarget(pgid);
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** True while any process (zombies included) is in the group. */
export function groupAlive(pgid: number): boolean {
  assertSafeTarget(pgid);
  return probe(-pgid);
}

/** True while the process exists (zombies included). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return probe(pid);
}

function probe(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but is not ours to signal. Still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Polls `condition` until it is true or `timeoutMs` passed; resolves whether it held.
 * Polling (rather than events) because group membership has no event to wait on.
 */
export async function waitFor(
  condition: () => boolean,
  timeoutMs: number,
  intervalMs = 15,
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (condition()) return true;
    const left = until - Date.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}
