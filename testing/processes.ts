/**
 * "Is this process still running?" for the tests that watch processes end (servers, escapees,
 * daemons, serves): the one place that reads it from /proc.
 *
 * Guarantees:
 * - `isAlive(pid)` is true while the process exists and is not a zombie: one that exited but
 *   was not reaped yet (a child of the test, or of PID 1 after its parent died) has ended, so
 *   a wait for it to end does not wait for its reaper.
 * - A pid that is gone, or whose /proc entry cannot be read, is not alive; it never throws.
 *
 * (proc/'s `pidAlive` answers the other question, "does the pid exist, zombies included", the
 * `kill -0` of the pool's and the session's tests.)
 */
import { readFileSync } from 'node:fs';

export function isAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // The state follows the command name, which is in parentheses and may hold any character.
  const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  return state !== 'Z' && state !== 'X';
}
