/**
 * A folder's configuration: what a session opened for a folder gets when its opener gives no
 * flags of its own. Configuration lives with the folder, not with the first process: the
 * daemon's `--mcp-config`, `--lsp-config` and both ceilings, given with its `--workspace`, are
 * that folder's, so an agent's plain `mcpctl serve` there sees the servers and language
 * servers the daemon's default session sees.
 *
 * Guarantees:
 * - An opener of the folder (compared by real path: a symbolic link to it is it) that gives
 *   none of the four flags gets the folder's four, exactly as the daemon was given them.
 * - An opener that gives any of them gets exactly its own (a folder's `--mcp-config` is never
 *   mixed into an opener's own choice); another folder gets nothing of the daemon's files.
 * - Either way an omitted ceiling is the daemon's (`Daemon.open`'s rule, kept: leaving a flag
 *   out never widens what the daemon was started with).
 * - The environment is not touched: it stays part of the session's key (a `${TOKEN}` never
 *   expands to another agent's value), so one folder may hold several sessions, which then
 *   see the same servers (and share their processes where the connectionIds are equal).
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { SessionFlags } from '../api/index.js';

/** Whether the opener chose any flag itself (then it gets exactly its own). */
export function givesOwnFlags(spec: SessionFlags): boolean {
  return (
    spec.ceiling !== undefined ||
    spec.mcpConfigPath !== undefined ||
    spec.lspCeiling !== undefined ||
    spec.lspConfigPath !== undefined
  );
}

/** Whether `a` and `b` name one folder (real paths; a missing one compares as resolved). */
export function sameFolder(a: string, b: string): boolean {
  return realOr(a) === realOr(b);
}

/**
 * `spec` with the folder's flags where it gave none for `folder.workspace`, then the folder's
 * (the daemon's) ceilings where it omitted one.
 */
export function withFolderFlags<S extends SessionFlags>(spec: S, folder: SessionFlags): S {
  const inherit = !givesOwnFlags(spec) && sameFolder(spec.workspace, folder.workspace);
  const files = inherit
    ? {
        ...(folder.mcpConfigPath ? { mcpConfigPath: folder.mcpConfigPath } : {}),
        ...(folder.lspConfigPath ? { lspConfigPath: folder.lspConfigPath } : {}),
      }
    : {};
  return {
    ...spec,
    ...files,
    ...(spec.ceiling === undefined && folder.ceiling ? { ceiling: folder.ceiling } : {}),
    ...(spec.lspCeiling === undefined && folder.lspCeiling
      ? { lspCeiling: folder.lspCeiling }
      : {}),
  };
}

function realOr(p: string): string {
  const abs = path.resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}
