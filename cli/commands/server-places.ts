/**
 * Where `mcpctl add`/`remove` write, by scope (as `claude mcp add --scope` users expect):
 * - `local` (the default): mcpctl's user server file, under `projects[<workspace realpath>]`:
 *   this workspace's sessions only; the user's, so never gated.
 * - `user`: the same file's top level: every session.
 * - `project`: `<workspace>/.mcp.json`, the repository's file: gated (approve before it runs).
 *
 * Guarantees: the workspace is `--workspace` or the current directory, as a real path (the key
 * a session has); the user's file is `$MCPCTL_SERVERS_PATH`, else `~/.mcpctl/mcp.json`
 * (api/server-file.ts); each place says itself in words a message can use.
 */
import {
  serverWhere,
  userServerFilePath,
  type PlaceOptions,
  type ServerFileShape,
} from '../../api/index.js';
import path from 'node:path';
import { selectorOf } from '../command-env.js';
import { CliError, UsageError } from '../errors.js';
import { homeDirectory } from '../rpc/socket-path.js';

export type EditScope = 'local' | 'user' | 'project';
export const EDIT_SCOPES: readonly EditScope[] = ['local', 'user', 'project'];

export interface ServerPlace extends PlaceOptions {
  readonly scope: EditScope;
  readonly file: string;
  readonly shape: ServerFileShape;
  /** `mcpServers."fs"` or `projects["/ws"].mcpServers."fs"`, for `name`. */
  where(name: string): string;
}

export function scopeOf(value: string | undefined): EditScope {
  if (value === undefined) return 'local';
  if ((EDIT_SCOPES as readonly string[]).includes(value)) return value as EditScope;
  throw new UsageError(`--scope is one of ${EDIT_SCOPES.join(', ')}`);
}

/** The real path of the workspace the command is about. */
export function workspaceOf(flag: string | undefined): string {
  const ws = selectorOf(flag).workspace;
  if (ws === undefined)
    throw new CliError(
      'the current directory no longer exists; cd to the workspace or pass --workspace DIR',
    );
  return ws;
}

export function placeOf(scope: EditScope, workspaceFlag: string | undefined): ServerPlace {
  switch (scope) {
    case 'local': {
      const workspace = workspaceOf(workspaceFlag);
      return {
        scope,
        file: userServerFilePath(homeDirectory()),
        workspace,
        shape: 'serverFile',
        where: (name) => serverWhere(name, workspace),
      };
    }
    case 'user':
      return {
        scope,
        file: userServerFilePath(homeDirectory()),
        shape: 'serverFile',
        where: (name) => serverWhere(name),
      };
    case 'project':
      return {
        scope,
        file: path.join(workspaceOf(workspaceFlag), '.mcp.json'),
        private: false,
        shape: 'mcpJson',
        where: (name) => serverWhere(name),
      };
  }
}
