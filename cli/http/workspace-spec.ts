/**
 * The daemon session an HTTP agent's folder opens. A `serve` agent brings its own flags and
 * environment, and the session table keys on them; an HTTP agent brings neither, so the
 * daemon decides for it.
 *
 * Guarantees:
 * - The daemon's own folder (compared by real path: a symbolic link to it is it), however the
 *   agent named it (`?workspace=`, its first root, or not at all), opens the daemon's session:
 *   its workspace, `--mcp-config` and `--lsp-config` (and its ceilings, which `Daemon.open`
 *   adds to every spec). So the same folder reaches the same servers and the same processes.
 * - Any other folder opens a session of that folder alone, with none of the daemon's files.
 * - Neither carries an environment: an HTTP agent's `${VAR}`s expand in the daemon's, never in
 *   that of the agent whose `serve` started the daemon (its default session has that one).
 */
import { realpathSync } from 'node:fs';
import type { Daemon, SessionSpec } from '../../controller/daemon.js';

/** The session of the daemon's own folder, as an HTTP agent opens it. */
export function daemonSessionSpec(daemon: Daemon): SessionSpec {
  const own = daemon.defaultSession;
  return {
    workspace: own.workspace,
    ...(own.flags.mcpConfigPath ? { mcpConfigPath: own.flags.mcpConfigPath } : {}),
    ...(own.flags.lspConfigPath ? { lspConfigPath: own.flags.lspConfigPath } : {}),
  };
}

/** The session of `folder` (absolute) as an HTTP agent opens it. */
export function folderSessionSpec(daemon: Daemon, folder: string): SessionSpec {
  let real: string;
  try {
    real = realpathSync(folder);
  } catch {
    // Missing: opening it says so (WorkspaceNotFoundError), naming the folder as given.
    return { workspace: folder };
  }
  // The default session's workspace is a real path already (the session table's).
  return real === daemon.defaultSession.workspace
    ? daemonSessionSpec(daemon)
    : { workspace: folder };
}
