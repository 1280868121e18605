/**
 * A private file of mcpctl's (approvals, OAuth tokens): read only when it is a regular file,
 * replaced whole, so a reader sees the old content or the new, never half.
 *
 * Guarantees:
 * - A read opens with O_NOFOLLOW | O_NONBLOCK (a link is never followed, a FIFO never blocks)
 *   and reads only a regular file; a link, a missing file or another kind of file is said as
 *   such, for the caller to word.
 * - A replace: the new text is written to a fresh name beside the file, created with
 * O_CREAT | O_EXCL (`wx`, which fails on any existing name, a planted link included) with
 * exactly the given mode (whatever the umask), synced to disk, then renamed over the file; on any failure the temporary file is
 * removed and the error thrown, and the file is as it was.
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs, type Stats } from 'node:fs';

export async function replaceFile(file: string, text: string, mode: number): Promise<void> {
  const temporary = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  const handle = await fs.open(temporary, 'wx', mode);
  try {
    try {
      // The umask may have taken bits off the mode asked for; the file gets exactly it.
      await handle.chmod(mode);
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

export type PrivateRead =
  | { readonly kind: 'text'; readonly text: string; readonly stat: Stats }
  | { readonly kind: 'missing' }
  | { readonly kind: 'link' }
  | { readonly kind: 'notRegular'; readonly stat: Stats };

/** The file's text when it is a regular file; other errors (EACCES, EIO…) are thrown. */
export async function readPrivateFile(file: string): Promise<PrivateRead> {
  try {
    const handle = await fs.open(
      file,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return { kind: 'notRegular', stat };
      return { kind: 'text', text: await handle.readFile('utf8'), stat };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    // O_NOFOLLOW on a link fails with ELOOP.
    if (code === 'ELOOP') return { kind: 'link' };
    throw error;
  }
}
