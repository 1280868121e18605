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
 * - The stats of the open handle come with the text, for a caller's "has it changed".
 */
import type { BigIntStats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { readFileCapped, type ReadResult } from '../api/index.js';

export type RealFileRead =
  | { readonly kind: 'ok'; readonly text: string; readonly stats: BigIntStats }
  | Exclude<ReadResult, { readonly kind: 'ok' }>;

const MOVED =
  'is not at its real path any more (a symbolic link on its path now leads elsewhere), so it was not read; ask about the file where it really is';
const REPLACED = 'was replaced while it was read, again and again; ask again when it is saved';

/** A save that replaces the file (write a copy, rename it over) during a read: read again. */
const ATTEMPTS = 3;

export async function readRealFile(file: string, maxBytes: number): Promise<RealFileRead> {
  for (let attempt = 1; ; attempt += 1) {
    let opened: BigIntStats | undefined;
    let replaced = false;
    const read = await readFileCapped(file, maxBytes, async (stats) => {
      opened = stats;
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
    return { ...read, stats: opened! };
  }
}
