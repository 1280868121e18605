/**
 * A server file's entries by name: add (or replace) and remove one server, at the top level or
 * in a workspace's part of the user file, through the editor (server-file-edit.ts), whose
 * guarantees hold for every call (refusals, atomic writes, modes, comments kept).
 *
 * Guarantees:
 * - The name is checked first, as every server name is (schema.ts `serverNameIssue`).
 * - add: the same entry again is `unchanged` and writes nothing; another entry under that name
 *   is refused (problem `exists`, the message naming the file and the entry) unless `replace`.
 * - remove: `absent` when there is none (nothing written, a missing file not made); a
 *   workspace's part left with no server goes with it, and `projects` when left empty.
 */
import path from 'node:path';
import { jsonEqual } from './equality.js';
import { quoted } from './escape.js';
import { isObject } from './is-object.js';
import { serverNameIssue, type ConfigPath } from './schema.js';
import {
  editServerFile,
  NOTHING_CHANGED,
  ServerFileError,
  type EditOutcome,
  type WriteOptions,
} from './server-file-edit.js';
import { projectWhere } from './server-file.js';

/** Where a server entry is: the top level, or a workspace's part of the user file. */
export function serverPath(name: string, workspace?: string): ConfigPath {
  return workspace === undefined
    ? ['mcpServers', name]
    : ['projects', workspace, 'mcpServers', name];
}

/** The entry's place in words: `mcpServers."fs"` or `projects["/ws"].mcpServers."fs"`. */
export function serverWhere(name: string, workspace?: string): string {
  const entry = `mcpServers.${quoted(name)}`;
  return workspace === undefined ? entry : `${projectWhere(workspace)}.${entry}`;
}

export interface PlaceOptions extends WriteOptions {
  /**
   * The absolute real path of a workspace: the entry goes under `projects[workspace]` of the
   * user's file (`mcpctl add --scope local`). Absent: the top level's `mcpServers`.
   */
  readonly workspace?: string;
}

export interface AddOptions extends PlaceOptions {
  /** Replace an entry of that name with another config (default: refuse, problem `exists`). */
  readonly replace?: boolean;
}

export type AddResult = 'added' | 'replaced' | 'unchanged';

function checkName(file: string, name: string): void {
  const issue = serverNameIssue(name, []);
  if (issue !== undefined)
    throw new ServerFileError(file, 'badName', `${issue.message}; ${NOTHING_CHANGED}`);
}

/**
 * Adds the server `name` with `entry` (written as given: the `.mcp.json` shape). The same entry
 * again is `unchanged` and writes nothing; another entry under that name is refused (`exists`)
 * unless `replace`.
 */
export async function addServer(
  file: string,
  name: string,
  entry: Readonly<Record<string, unknown>>,
  options: AddOptions = {},
): Promise<EditOutcome<AddResult>> {
  const absolute = path.resolve(file);
  checkName(absolute, name);
  const where = serverPath(name, options.workspace);
  return editServerFile(
    absolute,
    (editor): AddResult => {
      const existing = editor.valueAt(where);
      if (existing !== undefined && jsonEqual(existing, entry)) return 'unchanged';
      if (existing !== undefined && options.replace !== true)
        throw new ServerFileError(
          absolute,
          'exists',
          `${absolute}: ${serverWhere(name, options.workspace)} already holds another server of that name (replace it, or remove it first); ${NOTHING_CHANGED}`,
        );
      editor.set(where, entry);
      return existing === undefined ? 'added' : 'replaced';
    },
    options,
  );
}

export type RemoveResult = 'removed' | 'absent';

/**
 * Removes the server `name`; `absent` (nothing written, a missing file not made) when there is
 * none. A workspace's part left with no server is removed with it, and `projects` when empty.
 */
export async function removeServer(
  file: string,
  name: string,
  options: PlaceOptions = {},
): Promise<EditOutcome<RemoveResult>> {
  const absolute = path.resolve(file);
  checkName(absolute, name);
  const workspace = options.workspace;
  return editServerFile(
    absolute,
    (editor): RemoveResult => {
      const where = serverPath(name, workspace);
      if (editor.valueAt(where) === undefined) return 'absent';
      editor.remove(where);
      if (workspace !== undefined) {
        const project = editor.valueAt(['projects', workspace]);
        const servers = editor.valueAt(['projects', workspace, 'mcpServers']);
        const emptyServers = isObject(servers) && Object.keys(servers).length === 0;
        if (isObject(project) && emptyServers && Object.keys(project).length === 1)
          editor.remove(['projects', workspace]);
        const projects = editor.valueAt(['projects']);
        if (isObject(projects) && Object.keys(projects).length === 0) editor.remove(['projects']);
      }
      return 'removed';
    },
    options,
  );
}
