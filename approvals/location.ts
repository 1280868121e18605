/**
 * Where the approvals file lives (DESIGN §4 rule 6).
 *
 * Guarantees:
 * - `MCPCTL_APPROVALS_PATH`, when set and not empty, wins, resolved to an absolute path, so the
 *   daemon and every CLI invocation agree on one file whatever their working directory.
 * - Otherwise `<home>/.qwen/mcpApprovals.json`: the file Qwen itself uses, so decisions made in
 *   either tool hold in both.
 * - The environment and the home directory are parameters that default to the process's own;
 *   nothing here reads a global behind the caller's back, so tests pass their own values.
 */
import os from 'node:os';
import path from 'node:path';

export const APPROVALS_PATH_ENV = 'MCPCTL_APPROVALS_PATH';

export interface ApprovalsLocationOptions {
  /** Environment to read `MCPCTL_APPROVALS_PATH` from. Default: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Home directory. Default: `os.homedir()` (which follows `$HOME`). */
  readonly home?: string;
}

export function approvalsFilePath(options: ApprovalsLocationOptions = {}): string {
  const env = options.env ?? process.env;
  const override = env[APPROVALS_PATH_ENV];
  if (override !== undefined && override.trim() !== '') return path.resolve(override);
  return path.join(options.home ?? os.homedir(), '.qwen', 'mcpApprovals.json');
}
