/**
 * Files of a workspace as an agent names them, as a language server names them (file URIs),
 * and as answers show them.
 *
 * Guarantees:
 * - `resolveInWorkspace` accepts a path relative to the workspace or absolute inside it, and
 *   returns the file's realpath; anything that is outside, resolves outside through a symlink,
 *   does not exist, or is not a regular file is refused with an error naming the argument.
 * - `realPathInside` is a file's realpath when that is inside the workspace, else undefined:
 *   what an answer may read (a link inside the workspace to a file outside it is outside).
 * - A server's URI is compared as a path (`pathOf`), never as a string: servers spell the same
 *   file's URI differently (percent-encoding, `file:///` vs `file://localhost/`).
 * - `displayPath` is relative to the workspace, with `/`, for a file inside it; absolute
 *   otherwise (a definition in a library outside the workspace); a URI of another scheme is
 *   shown as it is.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LspError } from './errors.js';

export function uriOf(absolutePath: string): string {
  return pathToFileURL(absolutePath).href;
}

/** The absolute path of a `file:` URI; undefined for any other scheme or a malformed URI. */
export function pathOf(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === 'file:' ? fileURLToPath(url) : undefined;
  } catch {
    return undefined;
  }
}

/** True when `target` is `root` or inside it (both absolute and normalised). */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The realpath of the agent's `file` in `workspace` (itself a realpath). Refuses what is not a
 * regular file inside it.
 */
export async function resolveInWorkspace(workspace: string, file: string): Promise<string> {
  if (typeof file !== 'string' || file.trim() === '') {
    throw new LspError('badRequest', 'file must be a path relative to the workspace');
  }
  const given = path.resolve(workspace, file);
  if (!isInside(workspace, given)) {
    throw new LspError('badRequest', `${file} is outside the workspace ${workspace}`);
  }
  let real: string;
  try {
    real = await realpath(given);
  } catch {
    throw new LspError('badRequest', `no such file in the workspace: ${file}`);
  }
  if (!isInside(workspace, real)) {
    throw new LspError(
      'badRequest',
      `${file} leads outside the workspace (a symlink to ${real}): only files inside ${workspace} are answered`,
    );
  }
  const info = await stat(real);
  if (!info.isFile()) throw new LspError('badRequest', `${file} is not a regular file`);
  return real;
}

/** The realpath of `file` when it exists and is inside `workspace` (a realpath), else undefined. */
export async function realPathInside(workspace: string, file: string): Promise<string | undefined> {
  const real = await realpath(file).catch(() => undefined);
  return real !== undefined && isInside(workspace, real) ? real : undefined;
}

/** How an answer shows a file: relative to the workspace when inside, else absolute. */
export function displayPath(workspace: string, absolutePath: string): string {
  if (!isInside(workspace, absolutePath)) return absolutePath;
  return path.relative(workspace, absolutePath).split(path.sep).join('/');
}

/** How an answer shows a server's URI. */
export function displayUri(workspace: string, uri: string): string {
  const file = pathOf(uri);
  return file === undefined ? uri : displayPath(workspace, file);
}
