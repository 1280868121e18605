/**
 * What an HTTP agent's `initialize` asks the endpoint for (endpoint.ts): the session of a
 * workspace it named, the one its roots will name, the daemon's, or nothing at all.
 *
 * Guarantees:
 * - mcpctl's own client (`clientInfo.name` `mcpctl`: this endpoint as a server in a file mcpctl
 *   reads) gets an inert session (cli/agent/inert-port.ts), whatever the URL says: mcpctl is
 *   never proxied into itself.
 * - `?workspace=` must be absolute; `?metaTools=` one of off, add, only (as serve's flag,
 *   default off). Anything else is the sentence of a 400, naming the parameter.
 * - `?workspace=` wins; else an agent that declares roots waits for them (the daemon's session
 *   the fallback); else the daemon's own session (workspace-spec.ts for either folder's spec).
 */
import path from 'node:path';
import type { InitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Daemon } from '../../controller/daemon.js';
import type { MetaToolsMode } from '../../gateway/index.js';
import type { AgentSessionSpec } from './agent-session.js';
import { daemonSessionSpec, folderSessionSpec } from './workspace-spec.js';

/** The name mcpctl's own MCP client gives in `initialize` (pool/connector.ts). */
const MCPCTL_CLIENT = 'mcpctl';

/** The session an initialize asks for, or why it cannot have one (a 400's message). */
export function initializeSpecOf(
  daemon: Daemon,
  url: URL,
  init: InitializeRequest['params'],
): AgentSessionSpec | string {
  // mcpctl's own client (a pool connection): an entry of this endpoint in a file mcpctl
  // watches. Served, so the server shows Ready, but with nothing: no loop through itself.
  if (init.clientInfo.name === MCPCTL_CLIENT)
    return {
      kind: 'inert',
      reason:
        "this is mcpctl's own HTTP endpoint, reached by mcpctl itself (an entry of it in a config file mcpctl reads); it offers nothing there, so mcpctl never proxies itself",
    };
  const declaresRoots = init.capabilities.roots !== undefined;
  const params = url.searchParams;
  const meta = params.get('metaTools') ?? 'off';
  if (meta !== 'off' && meta !== 'add' && meta !== 'only')
    return `?metaTools=${meta} is not one of off, add, only`;
  const metaTools: MetaToolsMode = meta;
  const workspace = params.get('workspace');
  if (workspace !== null) {
    if (!path.isAbsolute(workspace))
      return `?workspace= must be an absolute path (got a relative one); the daemon has no working directory of yours`;
    const session = folderSessionSpec(daemon, workspace);
    return { kind: 'session', session, source: 'url', metaTools };
  }
  const daemons = daemonSessionSpec(daemon);
  if (declaresRoots)
    return {
      kind: 'roots',
      fallback: daemons,
      specOf: (folder) => folderSessionSpec(daemon, folder),
      metaTools,
    };
  return { kind: 'session', session: daemons, source: 'daemon', metaTools };
}
