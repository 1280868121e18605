/**
 * Reading, replacing and quarantining the approvals file on disk.
 *
 * Guarantees:
 * - A read says exactly one of: missing (no decisions yet), ok, corrupt (with the problem and
 *   where), or unreadable (with the OS error). It never throws for these, so every caller has
 *   to decide what each case means.
 * - A read never waits on the file: a FIFO, socket or device is `unreadable` ("not a regular
 *   file") without being read, checked before opening and again on the handle, and the open
 *   itself is non-blocking, so a FIFO swapped in between cannot hold a libuv thread forever.
 * - A write is atomic: a temporary file in the same folder, fsynced, then renamed over the old
 *   one (write-file-atomic). A reader in any process sees the old content or the new, never a
 *   mix, and a crash mid-write leaves the old file intact.
 * - The file is written with mode 0600 (it says which servers may run on this machine); a
 *   parent folder we have to create gets 0700. Existing folders (e.g. Qwen's `~/.qwen`) are
 *   left as their owner set them.
 * - `moveAside` never overwrites: it picks `<file>.corrupt-<timestamp>` and adds `-1`, `-2`, ...
 *   if an earlier quarantined copy already has that name.
 */
import { constants, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { parseDecisions, serializeDecisions, type ApprovalDecisions } from './decisions.js';

export type FileRead =
  | { readonly kind: 'missing' }
  | { readonly kind: 'ok'; readonly decisions: ApprovalDecisions }
  | { readonly kind: 'corrupt'; readonly problem: string }
  | { readonly kind: 'unreadable'; readonly error: unknown };

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Read-only and non-blocking: opening a FIFO must not wait for a writer. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Throws for what must not be read. A directory passes: reading it fails with EISDIR, which
 * says it well enough.
 */
function assertReadable(stats: Stats): void {
  if (stats.isFile() || stats.isDirectory()) return;
  const kind = stats.isFIFO() ? 'a FIFO (named pipe)' : stats.isSocket() ? 'a socket' : 'a device';
  throw new Error(
    `it is ${kind}, not a regular file, so it was not read; replace it with a regular file or remove it`,
  );
}

/** The file's text, read only if it is a regular file (see the module's guarantees). */
async function readRegularFile(file: string): Promise<string> {
  assertReadable(await fs.stat(file));
  const handle = await fs.open(file, OPEN_FLAGS);
  try {
    assertReadable(await handle.stat());
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

export async function readDecisionsFile(file: string): Promise<FileRead> {
  let text: string;
  try {
    text = await readRegularFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', error };
  }
  const parsed = parseDecisions(text);
  return parsed.ok
    ? { kind: 'ok', decisions: parsed.decisions }
    : { kind: 'corrupt', problem: parsed.problem };
}

/** Creates the folder that holds `file` (0700 for folders we create). */
export async function ensureParentDir(file: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: DIR_MODE });
}

export async function writeDecisionsFile(
  file: string,
  decisions: ApprovalDecisions,
): Promise<void> {
  await ensureParentDir(file);
  await writeFileAtomic(file, serializeDecisions(decisions), { mode: FILE_MODE, fsync: true });
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

/** Renames `file` to `<file>.corrupt-<timestamp>[-n]` and returns the new path. */
export async function moveAside(file: string, now: Date): Promise<string> {
  const base = `${file}.corrupt-${fileTimestamp(now)}`;
  let target = base;
  for (let n = 1; await exists(target); n++) target = `${base}-${n}`;
  await fs.rename(file, target);
  return target;
}
