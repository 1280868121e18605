/**
 * No orphans after a hard kill (DESIGN §5): the daemon records every server process it starts
 * (MCP servers and language servers, in one file) and the next daemon reaps what is left of
 * them.
 *
 * Guarantees:
 * - `ProcessRecorder` writes the file atomically (temp file + rename, mode 0600) on every
 *   change, synchronously, so a record exists before the server is sent its first message and
 *   a daemon killed at any moment leaves a complete, parseable file. A record is removed when
 *   its process group is gone; the file is removed when no record is left.
 * - Each record holds the pid, its process group and its start time (Linux: field 22 of
 *   /proc/<pid>/stat, clock ticks after boot), which tells our process from a later one that
 *   was given the same pid. Descendants that left a server's group (process-tree.ts) are
 *   recorded too, with their own pid as the group: the group they lead when they called
 *   setsid, else none, and then the process alone is signalled.
 * - `reapOrphans` kills (SIGTERM, then SIGKILL after a grace) a recorded group only when its
 *   leader is still running with the recorded start time. It never signals a reused pid, a
 *   record without a start time (systems without /proc), pgid 0/1 or ourselves. It returns
 *   what it killed and what it left and why, and removes the file.
 * - The file also holds the run's mark (run-mark.ts), which `recordingHooks` puts in every
 *   server's environment (`markEnv`): `reapOrphans` also ends, each alone (SIGTERM, grace,
 *   SIGKILL, while it is still itself), every process that carries that mark and is not in a
 *   recorded group it ends anyway — the descendants that left their server's group before any
 *   scan saw them. Only processes `markedProcesses` names are touched: this user's, started in
 *   that boot after that daemon, never ourselves or an ancestor of ours.
 * - Each record says which kind of server it serves (`McpServer`, `LanguageServer`).
 * - One file, one recorder: call `reapOrphans` first, then hand ONE `ProcessRecorder` to every
 *   pool (a recorder's first write replaces the file with its own records, so two recorders on
 *   one file would erase each other's). `recordingHooks` is how a spawn (group-child.ts) feeds
 *   it.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LanguageServer, McpServer } from '../api/index.js';
import type { ProcessHooks } from './group-child.js';
import { groupAlive, signalGroup, waitFor } from './process-group.js';
import { endProcesses, readStat } from './process-tree.js';
import {
  asRunMark,
  markedProcesses,
  markEnvOf,
  newRunMark,
  type MarkedProcess,
  type RunMark,
} from './run-mark.js';

/** The kind of server a recorded process runs (the object kinds of api/object.ts). */
export type ServerKind = McpServer['kind'] | LanguageServer['kind'];

/** What a record says about the process beyond its identity (for humans and the logs). */
export interface RecordInfo {
  readonly kind?: ServerKind;
  readonly connectionId?: string;
  readonly command?: string;
}

export interface ProcessRecord {
  readonly pid: number;
  readonly pgid: number;
  /** Start time in clock ticks after boot (/proc/<pid>/stat field 22); null where unknown. */
  readonly startTime: string | null;
  /** Absent in files written before language servers (MCP servers only then). */
  readonly kind?: ServerKind;
  readonly connectionId?: string;
  readonly command?: string;
  /** ISO time the record was made. */
  readonly recordedAt: string;
}

interface StateFileContent {
  readonly version: 1;
  /** The daemon that wrote the file (for humans reading it). */
  readonly ownerPid: number;
  /** The mark in its servers' environments; absent where none is made (and in older files). */
  readonly run?: RunMark;
  readonly processes: readonly ProcessRecord[];
}

/** Reads /proc/<pid>/stat; undefined when the process does not exist or there is no /proc. */
const procStat = readStat;

/** The start time of a process (Linux), undefined when it is not running or unknown. */
export function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.startTime;
}

/** Running = exists and is not a zombie (a zombie has exited; only its parent's wait is left). */
function running(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X';
}

function writeAtomicSync(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
}

/** The live record of the server processes of this daemon (every pool shares one). */
export class ProcessRecorder {
  /** This run's mark, for every server's environment (undefined without /proc). */
  readonly mark: RunMark | undefined = newRunMark();
  readonly #file: string;
  readonly #onError: (message: string) => void;
  readonly #records = new Map<number, ProcessRecord>();

  constructor(file: string, onError: (message: string) => void = () => undefined) {
    this.#file = file;
    this.#onError = onError;
  }

  add(pid: number, info: RecordInfo = {}): void {
    if (this.#records.has(pid)) return;
    this.#records.set(pid, {
      pid,
      pgid: pid,
      startTime: processStartTime(pid) ?? null,
      ...info,
      recordedAt: new Date().toISOString(),
    });
    this.#write();
  }

  remove(pid: number): void {
    if (this.#records.delete(pid)) this.#write();
  }

  records(): ProcessRecord[] {
    return [...this.#records.values()];
  }

  #write(): void {
    try {
      if (this.#records.size === 0) {
        rmSync(this.#file, { force: true });
        return;
      }
      const content: StateFileContent = {
        version: 1,
        ownerPid: process.pid,
        ...(this.mark ? { run: this.mark } : {}),
        processes: this.records(),
      };
      writeAtomicSync(this.#file, `${JSON.stringify(content, null, 2)}\n`);
    } catch (err) {
      // Bookkeeping must not take servers down; the caller is told and can log it.
      this.#onError(`cannot write process state file ${this.#file}: ${messageOf(err)}`);
    }
  }
}

/**
 * The hooks that keep `recorder` in step with one server's processes: its group leader and
 * every descendant that left the group are recorded while they run, and removed once gone;
 * and all of them carry the run's mark.
 */
export function recordingHooks(
  recorder: ProcessRecorder,
  info: RecordInfo,
): Required<ProcessHooks> {
  return {
    onSpawn: (pid) => recorder.add(pid, info),
    onDescendant: (pid) =>
      recorder.add(pid, { ...info, command: `a descendant of ${info.command ?? 'the server'}` }),
    onGone: (pid) => recorder.remove(pid),
    markEnv: markEnvOf(recorder.mark),
  };
}

export interface ReapReport {
  /** Groups that were running with the recorded start time and were ended. */
  readonly killed: ProcessRecord[];
  /** Records left alone, and why (not running, pid reused, no start time…). */
  readonly skipped: Array<{ readonly record: ProcessRecord; readonly reason: string }>;
  /** Processes no record named that carried the run's mark (descendants no scan saw), ended. */
  readonly marked: MarkedProcess[];
  /** Problems with the file itself. */
  readonly errors: string[];
}

export interface ReapOptions {
  /** ms between SIGTERM and SIGKILL. Default 1000. */
  readonly graceMs?: number;
}

function isRecord(value: unknown): value is ProcessRecord {
  if (value === null || typeof value !== 'object') return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.pid === 'number' &&
    typeof r.pgid === 'number' &&
    (r.startTime === null || typeof r.startTime === 'string')
  );
}

/** Kills what a previous daemon left running (see the module comment), then clears the file. */
export async function reapOrphans(
  stateFile: string,
  options: ReapOptions = {},
): Promise<ReapReport> {
  const report: ReapReport = { killed: [], marked: [], skipped: [], errors: [] };
  let text: string;
  try {
    text = readFileSync(stateFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      report.errors.push(`cannot read process state file ${stateFile}: ${messageOf(err)}`);
    }
    return report;
  }
  let records: unknown[] = [];
  let mark: RunMark | undefined;
  try {
    const parsed = JSON.parse(text) as { processes?: unknown; run?: unknown };
    if (Array.isArray(parsed.processes)) records = parsed.processes;
    else report.errors.push(`process state file ${stateFile} has no "processes" list`);
    mark = asRunMark(parsed.run);
    if (parsed.run !== undefined && mark === undefined)
      report.errors.push(`process state file ${stateFile} has a malformed "run" mark: ignored`);
  } catch (err) {
    report.errors.push(`process state file ${stateFile} is not valid JSON: ${messageOf(err)}`);
  }
  const graceMs = options.graceMs ?? 1000;
  const kills: Promise<void>[] = [];
  for (const record of records) {
    if (!isRecord(record)) {
      report.errors.push(`ignored a malformed record: ${JSON.stringify(record)}`);
      continue;
    }
    const reason = whyNotReap(record);
    if (reason !== undefined) {
      report.skipped.push({ record, reason });
      continue;
    }
    report.killed.push(record);
    kills.push(endGroup(record, graceMs));
  }
  if (mark) {
    // A member of a group ended above goes with its group.
    const groups = new Set(report.killed.map((r) => r.pgid));
    report.marked.push(...markedProcesses(mark).filter((p) => !groups.has(p.pgrp)));
    if (report.marked.length > 0) kills.push(endProcesses(report.marked, graceMs, 3000));
  }
  await Promise.all(kills);
  try {
    rmSync(stateFile, { force: true });
  } catch (err) {
    report.errors.push(`cannot remove process state file ${stateFile}: ${messageOf(err)}`);
  }
  return report;
}

function whyNotReap(record: ProcessRecord): string | undefined {
  const { pid, pgid } = record;
  if (!Number.isInteger(pid) || !Number.isInteger(pgid) || pid <= 1 || pgid <= 1) {
    return 'invalid pid or process group';
  }
  if (pid === process.pid || pgid === process.pid) return 'that is this process';
  if (record.startTime === null) {
    return 'start time was not recorded, so a reused pid cannot be ruled out';
  }
  const stat = procStat(pid);
  if (stat === undefined || stat.state === 'Z' || stat.state === 'X') return 'not running';
  if (stat.startTime !== record.startTime) {
    return `pid ${pid} now belongs to another process (start time ${stat.startTime}, recorded ${record.startTime})`;
  }
  return undefined;
}

async function endGroup(record: ProcessRecord, graceMs: number): Promise<void> {
  const { pid, pgid } = record;
  const gone = (): boolean => !running(pid) && !groupAlive(pgid);
  const kill = (signal: NodeJS.Signals): void => {
    signalGroup(pgid, signal);
    // A leader that moved to another group is still ours (its start time matched).
    if (procStat(pid)?.pgrp !== pgid && running(pid)) {
      try {
        process.kill(pid, signal);
      } catch {
        // Gone in between.
      }
    }
  };
  kill('SIGTERM');
  if (await waitFor(gone, graceMs)) return;
  kill('SIGKILL');
  // Zombies wait for their new parent (PID 1) to reap them; bounded.
  await waitFor(gone, 3000);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
