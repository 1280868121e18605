/**
 * Reading one config file from disk, bounded.
 *
 * Guarantees:
 * - A file larger than `maxBytes` is refused without reading its content: its size is checked on
 *   the open handle, and at most `maxBytes + 1` bytes are ever read, so a file that grows while
 *   being read is refused too.
 * - A missing file (or a missing directory on the way, ENOENT/ENOTDIR) is `missing`, which the
 *   caller treats as an empty source, not as an error.
 * - Any other failure (a directory where the file should be, no permission, …) is an `error`
 *   with a message that says what to do.
 */
import { open } from 'node:fs/promises';

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

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function tooLargeMessage(size: number, maxBytes: number): string {
  return `file is ${mib(size)}, larger than the ${mib(maxBytes)} limit, so it was not read; keep only configuration in it`;
}

const IS_DIRECTORY = 'is a directory, not a file; remove it or put the file there';

function readErrorMessage(err: unknown): string {
  const code = errnoOf(err);
  if (code === 'EISDIR') return IS_DIRECTORY;
  if (code === 'EACCES' || code === 'EPERM')
    return 'permission denied; make the file readable by this user (chmod u+r)';
  return `cannot be read: ${err instanceof Error ? err.message : String(err)}`;
}

export async function readFileCapped(
  file: string,
  maxBytes: number = DEFAULT_MAX_BYTES,
): Promise<ReadResult> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    const code = errnoOf(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'error', message: readErrorMessage(err) };
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return { kind: 'error', message: IS_DIRECTORY };
    if (stats.size > maxBytes) return { kind: 'tooLarge', size: stats.size };
    const chunks: Buffer[] = [];
    let total = 0;
    // Read until EOF or one byte past the cap; the size above may be stale already.
    for (;;) {
      // The first read asks for the whole file at once (one syscall, one copy for big files).
      const want = Math.max(64 * 1024, total === 0 ? stats.size + 1 : 0);
      const buffer = Buffer.allocUnsafe(Math.min(want, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return { kind: 'tooLarge', size: Math.max(total, stats.size) };
    }
    const whole = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
    return { kind: 'ok', text: whole.toString('utf8') };
  } catch (err) {
    return { kind: 'error', message: readErrorMessage(err) };
  } finally {
    await handle.close();
  }
}
