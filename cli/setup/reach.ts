/**
 * The one entry setup writes into an agent's config, in that agent's own shape.
 *
 * Guarantees:
 * - `serve`: the agent starts `mcpctl serve` (stdio) in its workspace; mcpctl's session is the
 *   workspace's. `http`: the daemon's Streamable HTTP endpoint with its bearer token as the
 *   `Authorization` header (the token is a secret: the diff shows `<redacted>`).
 * - The command is `mcpctl` when the `mcpctl` found on PATH is this very program; otherwise the
 *   absolute paths of this node and this program, so the entry runs what setup ran.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Reach } from './types.js';

/** The shapes agents write a server in. */
export type EntryStyle = 'claude' | 'gemini' | 'vscode' | 'cursor';

/**
 * The entry for `style`. `metaTools`: for an agent that never re-lists its tools (Qwen Code),
 * serve's `--meta-tools` (`?metaTools=add` over HTTP), so a server added later is still usable.
 */
export function reachEntry(
  reach: Reach,
  style: EntryStyle,
  metaTools = false,
): Record<string, unknown> {
  if (reach.kind === 'serve') {
    const stdio = {
      command: reach.command,
      args: [...reach.args, ...(metaTools ? ['--meta-tools'] : [])],
    };
    return style === 'claude' || style === 'vscode' ? { type: 'stdio', ...stdio } : stdio;
  }
  const headers = { Authorization: `Bearer ${reach.token}` };
  const url = metaTools ? `${reach.url}?metaTools=add` : reach.url;
  if (style === 'gemini') return { httpUrl: url, headers };
  if (style === 'cursor') return { url, headers };
  return { type: 'http', url, headers };
}

function realOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}

/** The `mcpctl` on PATH, if any. */
function onPath(env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, 'mcpctl');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** How an agent starts the running mcpctl's `serve`. */
export function serveReach(
  script: string = process.argv[1] ?? '',
  env: NodeJS.ProcessEnv = process.env,
): Reach {
  const found = onPath(env);
  const self = realOrNull(script);
  if (found !== null && self !== null && realOrNull(found) === self)
    return { kind: 'serve', command: 'mcpctl', args: ['serve'] };
  return { kind: 'serve', command: process.execPath, args: [self ?? script, 'serve'] };
}
