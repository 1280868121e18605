/**
 * Reading a file at its real path, for a language server or for an answer's lines.
 *
 * Guarantees:
 * - Only a regular file is read, opened non-blocking, checked on its handle, at most `maxBytes`
 *   (api/read-file.ts): a FIFO, socket or device (`/dev/zero`) is refused unread and never
 *   waited for, a file over the limit is refused without reading it.
 * - `file` must be its own realpath (absolute, no symbolic link on the way), checked after the
 *   open, and the open handle must be the file at that path (same device and inode): a link
 *   swapped in for the file or for a folder on its path, before or during the open, refuses the
 *   read. So what is read is what the real path names, never what a link leads to. A file
 *   replaced at its real path during the read (a save by rename) is read again, a few times.
 * - The stats of the open handle come with the text, and when the read began: `unchangedSince`
 *   tells from one later stat of the path that the file is still what was read, or says it
 *   cannot tell (see there); a caller may then skip the read, never otherwise.
 */
import type { BigIntStats } from 'node:fs';
import { readlink, realpath, stat } from 'node:fs/promises';
import { readFileCapped, type ReadResult } from '../api/index.js';

/** What a read saw of its file: the open handle's stats, and when the read began. */
export interface ReadStamp {
  readonly stats: BigIntStats;
  /** Wall clock (ns) before the file was first looked at. */
  readonly startedNs: bigint;
}

export type RealFileRead =
  | { readonly kind: 'ok'; readonly text: string; readonly stamp: ReadStamp }
  | Exclude<ReadResult, { readonly kind: 'ok' }>;

/**
 * A file changed less than this before a read may change again with the very same times:
 * file systems keep times in ticks of up to 2 s (FAT; 1 s on ext3, HFS+; a kernel's coarse
 * clock on the rest), and a write in the tick of the read leaves size and times as they were.
 */
const RACY_MARGIN_NS = 2_000_000_000n;

/**
 * Whether `now`, a stat of the path a read was made at, proves the file is what that read saw:
 * the same file (device, inode), size, mtime and ctime, and a read that began more than
 * RACY_MARGIN_NS after the file's last change, so that any later write, which sets ctime to its
 * time (no call sets it back), shows as a newer ctime. A file changed just before its read is
 * never proven unchanged: it is read again until its change is older than the margin (git's
 * rule for racily clean index entries). A wall clock turned back by more than the margin
 * between the read and the write could hide that write; nothing else can.
 */
export function unchangedSince(stamp: ReadStamp, now: BigIntStats): boolean {
  const then = stamp.stats;
  return (
    now.isFile() &&
    now.dev === then.dev &&
    now.ino === then.ino &&
    now.size === then.size &&
    now.mtimeNs === then.mtimeNs &&
    now.ctimeNs === then.ctimeNs &&
    then.ctimeNs + RACY_MARGIN_NS < stamp.startedNs &&
    then.mtimeNs + RACY_MARGIN_NS < stamp.startedNs
  );
}

const MOVED =
  'is not at its real path any more (a symbolic link on its path now leads elsewhere), so it was not read; ask about the file where it really is';
const REPLACED = 'was replaced while it was read, again and again; ask again when it is saved';

/** A save that replaces the file (write a copy, rename it over) during a read: read again. */
const ATTEMPTS = 3;

/** The path the kernel holds for an open descriptor, where /proc tells it. */
async function openedPath(fd: number): Promise<string | undefined> {
  return readlink(`/proc/self/fd/${fd}`).catch(() => undefined);
}

export async function readRealFile(file: string, maxBytes: number): Promise<RealFileRead> {
  for (let attempt = 1; ; attempt += 1) {
    const startedNs = BigInt(Date.now()) * 1_000_000n;
    let opened: BigIntStats | undefined;
    let replaced = false;
    const read = await readFileCapped(file, maxBytes, async (stats, fd) => {
      opened = stats;
      // The kernel's name of what was opened (Linux): at `file`, no link on its way. One call
      // instead of two, and about the handle itself; anything else is looked into below.
      if ((await openedPath(fd)) === file) return undefined;
      // After the open: a link swapped in before it would show here, or as another inode.
      if ((await realpath(file)) !== file) return MOVED;
      const now = await stat(file, { bigint: true });
      if (now.dev === stats.dev && now.ino === stats.ino) return undefined;
      replaced = true;
      return REPLACED;
    });
    if (replaced && attempt < ATTEMPTS) continue;
    if (read.kind !== 'ok') return read;
    // Set by the check, which runs before every read that can succeed.
    return { kind: 'ok', text: read.text, stamp: { stats: opened!, startedNs } };
  }
}
