/**
 * Which git repository a project folder is a work tree of (issue #35: approvals follow the
 * repository, not the path), proven by the repository itself, never by what a folder claims.
 *
 * Guarantees:
 * - A folder whose `.git` is a directory is the main work tree of the repository in it; its
 *   identity is that directory's realpath.
 * - A folder whose `.git` is a file (`gitdir: PATH`, what `git worktree add` writes) is a linked
 *   work tree only when the repository links it back: `PATH/gitdir` names this very `.git`
 *   file and `PATH/commondir` leads to the repository. Anyone can write a `.git` file into a
 *   downloaded folder that points at your repository; nobody but you writes into its `.git`,
 *   so a folder the repository does not list is no work tree of it (undefined).
 * - Anything else (no `.git`, a link, a FIFO, unreadable, over 4 KiB) is undefined: no
 *   repository, and so no decision carried. Reads are synchronous and small, never block.
 */
import {
  constants,
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
} from 'node:fs';
import path from 'node:path';

const MAX_POINTER = 4096;

/** A small regular file's text, never through a link and never waiting; undefined otherwise. */
function smallText(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_POINTER) return undefined;
    const buffer = Buffer.alloc(st.size);
    const n = readSync(fd, buffer, 0, st.size, 0);
    return buffer.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function real(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** The realpath of the git directory of the repository `root` is a work tree of, if any. */
export function repositoryOf(root: string): string | undefined {
  const dotGit = path.join(root, '.git');
  let st;
  try {
    st = lstatSync(dotGit);
  } catch {
    return undefined;
  }
  if (st.isDirectory()) return real(dotGit);
  if (!st.isFile()) return undefined;
  const pointer = /^gitdir: (.+)$/m.exec(smallText(dotGit) ?? '')?.[1]?.trim();
  if (pointer === undefined) return undefined;
  const linkDir = path.resolve(root, pointer);
  // The repository's own record of this work tree must name this `.git` file.
  const back = smallText(path.join(linkDir, 'gitdir'))?.trim();
  const self = real(dotGit);
  if (back === undefined || self === undefined || real(path.resolve(linkDir, back)) !== self)
    return undefined;
  const common = smallText(path.join(linkDir, 'commondir'))?.trim();
  if (common === undefined) return undefined;
  return real(path.resolve(linkDir, common));
}
