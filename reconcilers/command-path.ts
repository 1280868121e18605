/**
 * Finding a stdio server's `command` on the PATH of the session's environment (the agent's),
 * as the agent itself would have found it.
 *
 * Guarantees:
 * - A command with a `/` in it, an empty PATH, or a name found nowhere comes back unchanged
 *   (the spawn then reports it the usual way). So does any command when the session's PATH is
 *   the daemon's own: the spawn searches that PATH itself, and the config (so the connectionId)
 *   stays as written, shared with every session of the same PATH.
 * - Otherwise the first executable regular file `DIR/command` along PATH, absolute; relative
 *   PATH entries are skipped (they would depend on the daemon's own cwd).
 * - Hits are remembered per (PATH, command) and checked again with one stat before reuse, so a
 *   reload does not walk PATH for every server, and a removed binary is looked up afresh.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import type { SessionEnv } from '../api/index.js';

const hits = new Map<string, string>();

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function resolveCommand(command: string, env: SessionEnv): string {
  const searchPath = env.PATH;
  if (command === '' || command.includes('/') || !searchPath) return command;
  if (searchPath === process.env.PATH) return command;
  const key = `${searchPath}\0${command}`;
  const hit = hits.get(key);
  if (hit !== undefined && isExecutableFile(hit)) return hit;
  hits.delete(key);
  for (const dir of searchPath.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, command);
    if (isExecutableFile(candidate)) {
      hits.set(key, candidate);
      return candidate;
    }
  }
  return command;
}
