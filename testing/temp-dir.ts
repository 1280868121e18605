/**
 * A fresh temporary directory for one test.
 *
 * Guarantees:
 * - `path` is new, empty, and a realpath (a session's workspace is one, and macOS' tmpdir is a
 *   symlink), under the system's tmpdir (or `under`, a folder that exists) with `prefix`.
 * - `remove()` deletes it and all it holds; it never throws, also when called twice.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  readonly path: string;
  /** `name` inside the directory. */
  readonly file: (name: string) => string;
  /** (Properties, not methods: a test may take them apart, `{ path, remove }`.) */
  readonly remove: () => void;
}

export function tempDir(prefix = 'mcpctl-test-', under: string = tmpdir()): TempDir {
  const path = realpathSync(mkdtempSync(join(under, prefix)));
  return {
    path,
    file: (name) => join(path, name),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}
