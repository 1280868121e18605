/**
 * Reading, replacing and quarantining the approvals file on disk (its format: file-format.ts).
 *
 * Guarantees:
 * - A read says exactly one of: missing (no decisions yet), ok, corrupt (with the problem and
 *   where), or unreadable (with the OS error). It never throws for these, so every caller has
 *   to decide what each case means.
 * - Only a regular file is read, and never through a symbolic link (opened with O_NOFOLLOW,
 *   O_NONBLOCK, then checked with fstat, so there is no window between check and read): a
 *   link would let whoever controls its target decide which servers run, and a FIFO would
 *   block. Either is `unreadable` with a NotRegularFileError that names the fix. The store
 *   never writes over an unreadable file, so a link is not written through either.
 * - A write is atomic: a new temporary file in the same folder (created exclusively, so never
 *   through an existing name or link), fsynced, then renamed over the old one. rename replaces
 *   a link itself, never its target. A reader in any process sees the old content or the new,
 *   never a mix, and a crash mid-write leaves the old file intact.
 * - The file is written with mode 0600 (it says which servers may run on this machine); a
 *   parent folder we have to create gets 0700. Existing folders (e.g. Qwen's `~/.qwen`) are
 *   left as their owner set them.
 * - `moveAside` and `writeAside` never overwrite: they pick `<file>.corrupt-<timestamp>` and
 *   add `-1`, `-2`, ... if an earlier quarantined copy already has that name.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readPrivateFile, replaceFile, type PrivateRead } from '../api/index.js';
import {
  emptyDecisions,
  parseDecisions,
  serializeDecisions,
  type ApprovalsContent,
  type InvalidEntry,
} from './file-format.js';
import { APPROVALS_PATH_ENV } from './location.js';

export type FileRead =
  | { readonly kind: 'missing' }
  | { readonly kind: 'ok'; readonly content: ApprovalsContent }
  | { readonly kind: 'corrupt'; readonly problem: string }
  | { readonly kind: 'unreadable'; readonly error: unknown };

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** The approvals file is a link, a FIFO, a directory...: not read, not written. */
export class NotRegularFileError extends Error {
  override name = 'NotRegularFileError';
}

async function notRegular(file: string, stat?: { isDirectory(): boolean }): Promise<Error> {
  if (stat === undefined) {
    const target = await fs.readlink(file).catch(() => '?');
    const resolved = path.resolve(path.dirname(file), target);
    return new NotRegularFileError(
      `it is a symbolic link to ${resolved}; mcpctl keeps decisions only in a regular file, because a link lets whoever controls its target decide which servers run: replace the link by the file itself, or set ${APPROVALS_PATH_ENV}=${resolved}`,
    );
  }
  return new NotRegularFileError(
    `it is ${stat.isDirectory() ? 'a directory' : 'not a regular file'}; mcpctl keeps decisions only in a regular file: remove it, or set ${APPROVALS_PATH_ENV} to a file`,
  );
}

export async function readDecisionsFile(file: string): Promise<FileRead> {
  let read: PrivateRead;
  try {
    read = await readPrivateFile(file);
  } catch (error) {
    return { kind: 'unreadable', error };
  }
  if (read.kind === 'missing') return { kind: 'missing' };
  if (read.kind === 'link') return { kind: 'unreadable', error: await notRegular(file) };
  if (read.kind === 'notRegular')
    return { kind: 'unreadable', error: await notRegular(file, read.stat) };
  const text = read.text;
  const parsed = parseDecisions(text);
  return parsed.ok
    ? { kind: 'ok', content: { decisions: parsed.decisions, invalid: parsed.invalid } }
    : { kind: 'corrupt', problem: parsed.problem };
}

/** Creates the folder that holds `file` (0700 for folders we create). */
export async function ensureParentDir(file: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: DIR_MODE });
}

export async function writeDecisionsFile(file: string, content: ApprovalsContent): Promise<void> {
  await ensureParentDir(file);
  await replaceFile(file, serializeDecisions(content), FILE_MODE);
}

/** A timestamp usable in a file name on every platform (no `:`), sortable as text. */
export function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/:/g, '-');
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes malformed entries a decision replaced to a new `<file>.corrupt-<timestamp>[-n]`, in
 * the approvals file's own shape (so they can be merged back by hand); returns its path.
 */
export async function writeAside(
  file: string,
  entries: readonly InvalidEntry[],
  now: Date,
): Promise<string> {
  const text = serializeDecisions({ decisions: emptyDecisions(), invalid: entries });
  const base = `${file}.corrupt-${fileTimestamp(now)}`;
  for (let n = 0; ; n++) {
    const target = n === 0 ? base : `${base}-${n}`;
    try {
      // `wx`: never over an earlier copy (or anything else) of that name.
      await fs.writeFile(target, text, { flag: 'wx', mode: FILE_MODE });
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** Renames `file` to `<file>.corrupt-<timestamp>[-n]` and returns the new path. */
export async function moveAside(file: string, now: Date): Promise<string> {
  const base = `${file}.corrupt-${fileTimestamp(now)}`;
  let target = base;
  for (let n = 1; await exists(target); n++) target = `${base}-${n}`;
  await fs.rename(file, target);
  return target;
}
