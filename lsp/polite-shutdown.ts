/**
 * The polite end of a language server (connection.ts `close`): LSP's `shutdown` request, its
 * `exit` notification, and a wait for the process to leave, before the process group is ended
 * by force.
 *
 * Guarantees: all within `deadline` (a server that never answers `shutdown` costs the bound,
 * no more); never rejects (a send that fails is the server already gone).
 */
import {
  ExitNotification,
  ShutdownRequest,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { waitFor } from '../proc/index.js';
import type { ServerProcess } from './server-process.js';

/** `shutdown`, `exit`, and a wait for the process to leave, all before `deadline` (ms epoch). */
export async function shutdownPolitely(
  rpc: ProtocolConnection,
  proc: ServerProcess | undefined,
  deadline: number,
): Promise<void> {
  const left = (): number => Math.max(0, deadline - Date.now());
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, left())));
  try {
    await Promise.race([rpc.sendRequest(ShutdownRequest.type).catch(() => undefined), late]);
    await Promise.race([rpc.sendNotification(ExitNotification.type).catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
  if (proc) await waitFor(() => proc.exit !== undefined, left());
}
