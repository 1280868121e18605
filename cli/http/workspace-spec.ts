/**
 * The daemon session an HTTP agent's folder opens. An HTTP agent brings no flags and no
 * environment, so it opens the session of a folder alone; `Daemon.open` gives the daemon's own
 * folder its configuration (controller/folder-flags.ts), as it does for a flagless serve.
 *
 * Guarantees:
 * - The daemon's own folder (compared by real path: a symbolic link to it is it), however the
 *   agent named it (`?workspace=`, its first root, or not at all), opens the daemon's session:
 *   its workspace, `--mcp-config` and `--lsp-config` and its ceilings (Daemon.open's rule). So
 *   the same folder reaches the same servers and the same processes.
 * - Any other folder opens a session of that folder alone, with none of the daemon's files.
 * - Neither carries an environment: an HTTP agent's `${VAR}`s expand in the daemon's, never in
 *   that of the agent whose `serve` started the daemon (its default session has that one).
 */
import type { Daemon, SessionSpec } from '../../controller/daemon.js';

/** The session of the daemon's own folder, as an HTTP agent opens it. */
export function daemonSessionSpec(daemon: Daemon): SessionSpec {
  return { workspace: daemon.defaultSession.workspace };
}

/**
 * The session of `folder` (absolute) as an HTTP agent opens it (missing: opening it says so,
 * WorkspaceNotFoundError, naming the folder as given).
 */
export function folderSessionSpec(_daemon: Daemon, folder: string): SessionSpec {
  return { workspace: folder };
}
