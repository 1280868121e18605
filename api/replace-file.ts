/**
 * Replacing a private file whole, so a reader sees the old content or the new, never half.
 *
 * Guarantees: the new text is written to a fresh name beside the file, created with
 * O_CREAT | O_EXCL (`wx`, which fails on any existing name, a planted link included) and the
 * given mode, synced to disk, then renamed over the file; on any failure the temporary file is
 * removed and the error thrown, and the file is as it was.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';

export async function replaceFile(file: string, text: string, mode: number): Promise<void> {
  const temporary = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  const handle = await fs.open(temporary, 'wx', mode);
  try {
    try {
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
