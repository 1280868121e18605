/**
 * Saying what to do about a daemon that does not answer (issue 22): which process it is, and
 * whether it is stopped, read from /proc so it works even while the daemon cannot say a word.
 *
 * Guarantees:
 * - `listenerPidOf` finds the process that holds the listening socket bound at a path (Linux:
 *   /proc/net/unix, then the fds of the processes we may read); undefined anywhere else, or
 *   when no readable process holds it. It only reads, and never signals anything.
 * - `notAnsweringMessage` names the daemon (with its pid when known), the socket, how long was
 *   waited, whether it is stopped right now, the log when there is one, and the ways out:
 *   `kill -CONT`, `mcpctl stop` / `kill`, and the setting that waits longer.
 */
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { ANSWER_TIMEOUT_ENV } from './answer-timeout.js';
import { daemonLogPath } from './rpc/socket-path.js';

/** __SO_ACCEPTCON in /proc/net/unix's Flags column: a listening socket. */
const LISTENING = 0x10000;

/**
 * Socket inodes of the listening Unix sockets bound at `socketPath` (Linux). The kernel writes
 * /proc/net/unix in pieces, and sockets made or closed between two pieces can shift a line out
 * of a read, so a table that lacks the path is read again (a few times) before we say none.
 */
function listeningInodes(socketPath: string): Set<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inodes = listeningInodesOnce(socketPath);
    if (inodes.size > 0) return inodes;
  }
  return new Set();
}

function listeningInodesOnce(socketPath: string): Set<string> {
  const inodes = new Set<string>();
  let table: string;
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return inodes;
  }
  for (const line of table.split('\n').slice(1)) {
    // Num: RefCount Protocol Flags Type St Inode Path (the path may hold spaces).
    const m = /^\S+: \S+ \S+ ([0-9A-Fa-f]+) \S+ \S+ (\d+) (.+)$/.exec(line);
    if (m && m[3] === socketPath && (parseInt(m[1] ?? '0', 16) & LISTENING) !== 0)
      inodes.add(m[2] ?? '');
  }
  return inodes;
}

/** The pid of the process listening at `socketPath`, where /proc tells it. */
export function listenerPidOf(socketPath: string): number | undefined {
  const inodes = listeningInodes(socketPath);
  if (inodes.size === 0) return undefined;
  const links = new Set([...inodes].map((i) => `socket:[${i}]`));
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // Gone, or not ours to read.
    }
    for (const fd of fds) {
      try {
        if (links.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return Number(pid);
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return undefined;
}

/** The state letter of /proc/<pid>/stat (R, S, D, T, t, Z…), undefined when unknown. */
export function processStateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** `nothing within 10 s`, how long a client waited for any answer. */
export function silenceOf(ms: number): string {
  return `nothing within ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`}`;
}

/** The sentence for a daemon that does not answer; `why` says how that showed. */
export function notAnsweringMessage(socket: string, why: string): string {
  const pid = listenerPidOf(socket);
  const state = pid === undefined ? undefined : processStateOf(pid);
  const who = pid === undefined ? 'the mcpctl daemon' : `the mcpctl daemon (pid ${pid})`;
  const p = pid === undefined ? '<its pid>' : String(pid);
  const log = daemonLogPath(socket);
  const logText = existsSync(log) ? `; see its log ${log}` : '';
  const head = `${who} at ${socket} does not answer (${why}); it may be stopped or busy`;
  // A stopped process keeps a SIGTERM pending until it is continued, so `kill` alone is not enough.
  if (state === 'T' || state === 't')
    return `${head}, and it is stopped right now: resume it with 'kill -CONT ${p}'${logText}; or end it with 'kill ${p}' followed by 'kill -CONT ${p}'`;
  const disk = state === 'D' ? ' (it is waiting on the disk right now)' : '';
  return (
    `${head}${disk}: if it was stopped, resume it with 'kill -CONT ${p}'${logText}; or end it with 'mcpctl stop' ` +
    `(or 'kill ${p}' when that gets no answer either). To wait longer, set ${ANSWER_TIMEOUT_ENV} or --answer-timeout (e.g. 30s)`
  );
}
