/**
 * Reading the agent's files before planning: each one once, never through a link, never
 * blocking on a FIFO, never past a size cap.
 *
 * Guarantees:
 * - A missing file (or folder on the way) is `absent`.
 * - A symbolic link, a FIFO, a directory or any other non-regular file is `refused` unread, with
 *   what to do: setup writes only regular files it has read (a link's target could be any file).
 * - A file over MAX_AGENT_FILE_BYTES is refused unread (`~/.claude.json` grows with history,
 *   so the cap is generous).
 * - A file whose bytes are not UTF-8 text is refused (setup edits text and restores bytes).
 * - The mode is the file's own (kept when it is replaced).
 */
import { constants } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { messageOf } from '../errors.js';
import type { AgentFile } from './types.js';

export const MAX_AGENT_FILE_BYTES = 64 * 1024 * 1024;

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

export async function readAgentFile(file: string): Promise<AgentFile> {
  let stats;
  try {
    stats = await lstat(file);
  } catch (err) {
    const code = errno(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent', path: file };
    return { kind: 'refused', path: file, problem: `cannot be read: ${messageOf(err)}` };
  }
  if (stats.isSymbolicLink())
    return {
      kind: 'refused',
      path: file,
      problem:
        'is a symbolic link; setup edits only regular files: put the file itself there (or edit its target by hand), then run setup again',
    };
  if (!stats.isFile())
    return {
      kind: 'refused',
      path: file,
      problem:
        'is not a regular file (a FIFO, socket, device or folder); move it away, then run setup again',
    };
  if (stats.size > MAX_AGENT_FILE_BYTES)
    return {
      kind: 'refused',
      path: file,
      problem: `is ${stats.size} bytes, more than the ${MAX_AGENT_FILE_BYTES} setup reads; edit it by hand`,
    };
  let bytes: Buffer;
  try {
    const handle = await open(
      file,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
    try {
      const now = await handle.stat();
      if (!now.isFile() || now.size > MAX_AGENT_FILE_BYTES)
        return { kind: 'refused', path: file, problem: 'changed while read; run setup again' };
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (err) {
    return { kind: 'refused', path: file, problem: `cannot be read: ${messageOf(err)}` };
  }
  const text = bytes.toString('utf8');
  // Edited as text and restored from its bytes: only a file whose bytes are its text is taken.
  if (!Buffer.from(text, 'utf8').equals(bytes))
    return {
      kind: 'refused',
      path: file,
      problem: 'is not UTF-8 text; fix or move it, then run setup again',
    };
  return { kind: 'text', path: file, text, mode: stats.mode & 0o7777 };
}

/** The real path of a folder, or undefined when there is none. */
export async function realFolder(folder: string): Promise<string | undefined> {
  try {
    return await realpath(folder);
  } catch {
    return undefined;
  }
}
