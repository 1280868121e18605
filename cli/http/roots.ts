/**
 * The workspace an HTTP agent's roots name: the first `file://` root that is a directory.
 *
 * Guarantees: only a `roots/list` result of MCP's shape counts; a root that is not a `file:`
 * URL, not absolute, missing or not a directory is skipped; the answer is the directory's
 * real path; nothing usable → undefined (the daemon's workspace is used then).
 */
import { realpathSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function workspaceOfRoots(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null || !('roots' in result)) return undefined;
  const roots: unknown = result.roots;
  if (!Array.isArray(roots)) return undefined;
  for (const root of roots as unknown[]) {
    if (typeof root !== 'object' || root === null || !('uri' in root)) continue;
    const uri: unknown = root.uri;
    if (typeof uri !== 'string' || !uri.startsWith('file:')) continue;
    try {
      const dir = fileURLToPath(uri);
      if (statSync(dir).isDirectory()) return realpathSync(dir);
    } catch {
      // Not a path of this machine, or gone: the next root.
    }
  }
  return undefined;
}
