/**
 * The mark of one daemon run: a variable in the environment of every server process it
 * starts, which every descendant inherits — also one that leaves the server's group with
 * `setsid` before any scan of the tree saw it (process-tree.ts looks every few seconds). After a
 * hard kill the next daemon finds those in /proc by their mark (orphans.ts), whenever they were
 * started.
 *
 * Guarantees:
 * - The mark's value is 128 random bits, made once per run (`newRunMark`): a process cannot
 *   carry it by chance, only by inheriting it (or by copying it from one of our servers, which
 *   only a process of the same user can read).
 * - It is set at spawn (group-child.ts), never in a server's config or its session's
 *   environment: it is in no connectionId and no config diff.
 * - `markedProcesses(mark)` names only processes that carry exactly `RUN_MARK_ENV=<id>` in their
 *   environment, run as this user (the uid the mark was made by, which is ours), started in the
 *   same boot no earlier than the marking daemon, and are neither this process nor one of its
 *   ancestors. It only reads /proc; a process whose environment cannot be read is not named.
 *   Where there is no /proc (or no uid), no mark is made and nothing is named.
 * - A process that cleared its environment (`env -i`, an exec with an environment of its own)
 *   carries no mark and is not found this way; the tree scans and the records still apply.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { readStat, type ProcessIdentity } from './process-tree.js';

/** The environment variable that carries the mark. */
export const RUN_MARK_ENV = 'MCPCTL_RUN_MARK';

/** One run's mark, as the state file keeps it. */
export interface RunMark {
  /** 32 hex digits, random. */
  readonly id: string;
  /** The user the daemon ran as. */
  readonly uid: number;
  /** The daemon's start time (clock ticks after boot, /proc/<pid>/stat field 22). */
  readonly startTime: string;
  /** /proc/sys/kernel/random/boot_id: start times count from this boot. */
  readonly bootId: string;
}

/** A marked process: itself, and the group it is in. */
export interface MarkedProcess extends ProcessIdentity {
  readonly pgrp: number;
}

function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** A new mark for this process's run; undefined where /proc or uids are missing. */
export function newRunMark(): RunMark | undefined {
  const uid = process.getuid?.();
  const startTime = readStat(process.pid)?.startTime;
  const boot = bootId();
  if (uid === undefined || startTime === undefined || boot === undefined) return undefined;
  return { id: randomBytes(16).toString('hex'), uid, startTime, bootId: boot };
}

/** `value` as a RunMark, when it is one (a state file is read back). */
export function asRunMark(value: unknown): RunMark | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const m = value as Record<string, unknown>;
  const ok =
    typeof m.id === 'string' &&
    /^[0-9a-f]{32}$/.test(m.id) &&
    typeof m.uid === 'number' &&
    Number.isInteger(m.uid) &&
    typeof m.startTime === 'string' &&
    /^\d+$/.test(m.startTime) &&
    typeof m.bootId === 'string' &&
    m.bootId !== '';
  return ok ? (value as RunMark) : undefined;
}

/** The environment a server is started with on top of its own: the mark of `mark`'s run. */
export function markEnvOf(mark: RunMark | undefined): Readonly<Record<string, string>> {
  return mark ? { [RUN_MARK_ENV]: mark.id } : {};
}

/** This process and its ancestors: never named, whatever their environment says. */
function selfAndAncestors(): Set<number> {
  const chain = new Set<number>();
  for (let pid = process.pid; pid > 1 && !chain.has(pid);) {
    chain.add(pid);
    const parent = readStat(pid)?.ppid;
    if (parent === undefined) break;
    pid = parent;
  }
  return chain;
}

/** Whether `pid` is a process of `uid` whose environment holds `entry` (see the guarantees). */
function carries(pid: number, uid: number, entry: string): boolean {
  try {
    if (statSync(`/proc/${pid}`).uid !== uid) return false;
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    // Gone, or not ours to read.
    return false;
  }
}

/** The running processes that carry `mark` (see the guarantees). */
export function markedProcesses(mark: RunMark): MarkedProcess[] {
  const uid = process.getuid?.();
  if (uid === undefined || uid !== mark.uid || bootId() !== mark.bootId) return [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const skip = selfAndAncestors();
  const since = BigInt(mark.startTime);
  const entry = `${RUN_MARK_ENV}=${mark.id}`;
  const found: MarkedProcess[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid <= 1 || skip.has(pid)) continue;
    const stat = readStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    if (BigInt(stat.startTime) < since) continue;
    if (!carries(pid, uid, entry)) continue;
    found.push({ pid, startTime: stat.startTime, pgrp: stat.pgrp });
  }
  return found;
}
