/**
 * The key a project's decisions are filed under (DESIGN §4 rule 6).
 *
 * Guarantees:
 * - Reads and writes use the same function, so a decision is always found where it was put.
 * - The key is the realpath of the project root: a workspace opened through a symlink and the
 *   same workspace opened by its real path share their decisions (the design note traces a
 *   "approved but still skipped" bug to two differently spelled roots).
 * - A root that does not exist (yet) still gets a stable key: the realpath of its nearest
 *   existing ancestor joined with the rest, which is `path.resolve(root)` when no ancestor is a
 *   symlink and stays the same key once the folder is created.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';

export function projectKeyOf(root: string): string {
  const absolute = path.resolve(root);
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(realpathSync.native(current), ...rest);
    } catch {
      const parent = path.dirname(current);
      // At the filesystem root nothing resolves (unusual: permissions); keep the plain path.
      if (parent === current) return absolute;
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}
