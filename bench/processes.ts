/**
 * Finding the processes a bench step started, from /proc: the honest count for the pool
 * figure (what really runs, not what the pool believes) and the check that every process the
 * bench started has ended.
 */
import { readFileSync, readdirSync } from 'node:fs';

function procText(pid: string, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Running = exists and is not a zombie. */
export function running(pid: number): boolean {
  const stat = procText(String(pid), 'stat');
  if (stat === undefined) return false;
  const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  return state !== 'Z' && state !== 'X';
}

/** Pids of running processes (not us) whose command line contains `needle`. */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = procText(entry, 'cmdline');
    if (cmdline?.includes(needle) && running(Number(entry))) out.push(Number(entry));
  }
  return out;
}

/** Resident set size of a process in MiB (VmRSS), 0 when it is gone. */
export function rssMb(pid: number): number {
  const status = procText(String(pid), 'status');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status ?? '')?.[1];
  return kb === undefined ? 0 : Number(kb) / 1024;
}

/** Ends what is left (whole groups first), for the bench's final cleanup. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids)
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Gone already, or not a group leader.
      }
    }
}
