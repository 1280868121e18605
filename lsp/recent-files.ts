/**
 * The files answers quoted lines from lately (answer-texts.ts), each with the stamp of its read,
 * so that quoting a file again costs one stat instead of a read: an agent asks about the same
 * few files over and over, and every read is several trips to the file threads the whole daemon
 * shares.
 *
 * Guarantees:
 * - A kept text is used only when a stat of its path now proves the file unchanged since that
 *   read (real-file.ts `unchangedSince`); a failed stat, or any doubt, reads the file again.
 * - Every read is `readRealFile`'s (or the reader given instead), so all of real-file.ts holds: only a regular file at its real
 *   path, opened non-blocking, at most `maxBytes`; nothing but such a read is ever kept.
 * - A kept text longer than the `maxBytes` asked for is answered `tooLarge`, as a read would be.
 * - At most MAX_FILES files and MAX_BYTES of text are kept, the least recently used going first.
 */
import { stat } from 'node:fs/promises';
import { readRealFile, unchangedSince, type RealFileRead } from './real-file.js';

const MAX_FILES = 128;
const MAX_BYTES = 8 * 1024 * 1024;

type Kept = Extract<RealFileRead, { kind: 'ok' }>;

/** How a file is read when it must be: readRealFile (a test may count the reads). */
export type FileReader = (file: string, maxBytes: number) => Promise<RealFileRead>;

export class RecentFiles {
  readonly #readFile: FileReader;
  /** In use order, oldest first (a Map keeps insertion order). */
  readonly #kept = new Map<string, Kept>();
  #bytes = 0;

  constructor(readFile: FileReader = readRealFile) {
    this.#readFile = readFile;
  }

  /** `file` (a real path) as `readRealFile` would read it now. */
  async read(file: string, maxBytes: number): Promise<RealFileRead> {
    const kept = this.#kept.get(file);
    if (kept) {
      this.#drop(file);
      const now = await stat(file, { bigint: true }).catch(() => undefined);
      if (now !== undefined && unchangedSince(kept.stamp, now)) {
        this.#keep(file, kept);
        const size = bytesOf(kept);
        return size > maxBytes ? { kind: 'tooLarge', size } : kept;
      }
    }
    const read = await this.#readFile(file, maxBytes);
    if (read.kind === 'ok') this.#keep(file, read);
    return read;
  }

  get size(): number {
    return this.#kept.size;
  }

  #keep(file: string, read: Kept): void {
    if (bytesOf(read) > MAX_BYTES) return;
    this.#drop(file);
    this.#kept.set(file, read);
    this.#bytes += bytesOf(read);
    for (const [oldest, old] of this.#kept) {
      if (this.#kept.size <= MAX_FILES && this.#bytes <= MAX_BYTES) break;
      this.#kept.delete(oldest);
      this.#bytes -= bytesOf(old);
    }
  }

  #drop(file: string): void {
    const kept = this.#kept.get(file);
    if (!kept) return;
    this.#kept.delete(file);
    this.#bytes -= bytesOf(kept);
  }
}

/** The file's size when it was read (a file proven unchanged still has it); its text's at least. */
function bytesOf(read: Kept): number {
  return Math.max(Number(read.stamp.stats.size), read.text.length);
}
