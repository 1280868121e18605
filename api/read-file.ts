/**
 * Reading one file from disk, bounded and never waiting: the config files (informers/) and
 * the files language servers are asked about (lsp/) are read here.
 *
 * Guarantees:
 * - A file larger than `maxBytes` is refused without reading its content: its size is checked on
 *   the open handle, and at most `maxBytes + 1` bytes are ever read, so a file that grows while
 *   being read is refused too.
 * - A missing file (or a missing directory on the way, ENOENT/ENOTDIR) is `missing`, which the
 *   caller treats as it must (an empty source, a file that is gone), not as an error.
 * - Only regular files (or symlinks to one) are read. A FIFO, socket, device or directory is an
 *   `error` ("not a regular file") and is never read: it is checked before opening, the open is
 *   non-blocking (a FIFO swapped in after the check cannot make open() wait for a writer), and
 *   the open handle is checked again before the first read. A read that could block forever
 *   would hold one of libuv's four threads, and four of them freeze every file operation of
 *   the daemon.
 * - `verify`, when given, sees the open handle's stats and descriptor before anything is read, and its
 *   message refuses the file (an `error`): how a caller checks that the file it opened is the
 *   one it means (lsp/ compares it with the file at a real path inside the workspace).
 * - Any other failure (no permission, …) is an `error` with a message that says what to do.
 */
import { constants, type BigIntStats, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { messageOf } from './message-of.js';

/** 4 MiB: far beyond any hand-written config, small enough to never stall the daemon. */
export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

export type ReadResult =
  | { readonly kind: 'ok'; readonly text: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'tooLarge'; readonly size: number }
  | { readonly kind: 'error'; readonly message: string };

function errnoOf(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string'
    ? err.code
    : undefined;
}

const IS_DIRECTORY = 'is a directory, not a file; remove it or put the file there';

/**
 * Read-only, non-blocking: opening a FIFO must not wait for a writer; and a terminal swapped in
 * after the check must not become the daemon's controlling one (flags a system lacks: 0).
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** What a non-regular file is, in words, for the message. */
function kindOf(stats: Stats | BigIntStats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'a special file';
}

function notRegularMessage(kind: string): string {
  return `is ${kind}, not a regular file, so it was not read; replace it with a regular file (or remove it)`;
}

/** Why `stats` must not be read, or undefined for a regular file. */
function refusal(stats: Stats | BigIntStats): string | undefined {
  if (stats.isFile()) return undefined;
  return stats.isDirectory() ? IS_DIRECTORY : notRegularMessage(kindOf(stats));
}

function readErrorMessage(err: unknown): string {
  const code = errnoOf(err);
  if (code === 'EISDIR') return IS_DIRECTORY;
  // open() of a Unix socket fails with ENXIO; a check above usually catches it first.
  if (code === 'ENXIO') return notRegularMessage('a socket or device without a reader');
  if (code === 'EACCES' || code === 'EPERM')
    return 'permission denied; make the file readable by this user (chmod u+r)';
  return `cannot be read: ${messageOf(err)}`;
}

/**
 * Checks the open handle (its stats and descriptor): a message refuses the file, undefined lets
 * the read go on.
 */
export type HandleCheck = (stats: BigIntStats, fd: number) => Promise<string | undefined>;

export async function readFileCapped(
  file: string,
  maxBytes: number = DEFAULT_MAX_BYTES,
  verify?: HandleCheck,
): Promise<ReadResult> {
  let handle;
  try {
    // Checked before opening: opening a device can have effects of its own.
    const refused = refusal(await stat(file));
    if (refused !== undefined) return { kind: 'error', message: refused };
    handle = await open(file, OPEN_FLAGS);
  } catch (err) {
    const code = errnoOf(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'error', message: readErrorMessage(err) };
  }
  try {
    // Checked again on the handle: the path may have been swapped since the check above.
    const stats = await handle.stat({ bigint: true });
    const refused = refusal(stats) ?? (await verify?.(stats, handle.fd));
    if (refused !== undefined) return { kind: 'error', message: refused };
    const size = Number(stats.size);
    if (size > maxBytes) return { kind: 'tooLarge', size };
    const chunks: Buffer[] = [];
    let total = 0;
    // Read until EOF or one byte past the cap; the size above may be stale already.
    for (;;) {
      // The first read asks for the whole file at once (one syscall, one copy for big files).
      const want = Math.max(64 * 1024, total === 0 ? size + 1 : 0);
      const buffer = Buffer.allocUnsafe(Math.min(want, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return { kind: 'tooLarge', size: Math.max(total, size) };
      // A short read of exactly the size the handle said is the end of a regular file: no
      // second read to hear it (a file of size 0, such as those of /proc, reads on to EOF).
      if (total === size && bytesRead < buffer.length) break;
    }
    const whole = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
    return { kind: 'ok', text: whole.toString('utf8') };
  } catch (err) {
    return { kind: 'error', message: readErrorMessage(err) };
  } finally {
    await handle.close();
  }
}
