/**
 * What every daemon method needs: the daemon, the calling connection's session holds, and
 * the one rule for picking a session from a request.
 *
 * Session selection (the CLI's `--workspace`, DESIGN §7):
 * 1. `sessionId` given → that session, or NotFound.
 * 2. `workspace` given → the open session whose workspace realpath matches (the default one
 *    preferred). None matches: with `openIfMissing` (the user named the workspace) a session
 *    is opened for it and held by this connection until it closes; without, the daemon's
 *    default session (the CLI ran in some other folder).
 * 3. Nothing given → the default session.
 */
import { z } from 'zod';
import type { Daemon, SessionHandle } from '../../controller/daemon.js';
import type { Session } from '../../controller/session.js';
import { RpcCodes, RpcError } from '../rpc-protocol.js';
import type { CallContext, RpcConnection } from '../rpc-server.js';

export interface MethodContext {
  readonly daemon: Daemon;
  readonly socketPath: string;
  readonly version: string;
  /** Starts the daemon's graceful shutdown (call it after the reply is written). */
  requestStop(reason: string): void;
}

/** Params every session-scoped method accepts. */
export const selectorShape = {
  sessionId: z.string().min(1).optional(),
  workspace: z.string().min(1).optional(),
  openIfMissing: z.boolean().optional(),
};

export type Selector = { sessionId?: string; workspace?: string; openIfMissing?: boolean };

export async function selectSession(
  ctx: MethodContext,
  sel: Selector,
  call: CallContext,
): Promise<Session> {
  const { daemon } = ctx;
  if (sel.sessionId !== undefined) {
    const s = daemon.session(sel.sessionId);
    if (!s) {
      const known = daemon.sessions().map((i) => i.session.id);
      throw new RpcError(
        RpcCodes.NotFound,
        `no session named ${sel.sessionId}; open sessions: ${known.join(', ')}`,
      );
    }
    return s;
  }
  if (sel.workspace !== undefined) {
    const found = daemon.findByWorkspace(sel.workspace);
    if (found) return found;
    if (sel.openIfMissing) {
      const handle = await daemon.open({ workspace: sel.workspace });
      hold(call.conn, handle);
      // A fresh session answers about settled state, not a half-started one.
      await handle.session.settled();
      return handle.session;
    }
  }
  return daemon.defaultSession;
}

const holds = new WeakMap<RpcConnection, Map<string, SessionHandle<Session>[]>>();

/** The connection holds the session until it closes (or calls `session.close`). */
export function hold(conn: RpcConnection, handle: SessionHandle<Session>): void {
  let mine = holds.get(conn);
  if (!mine) {
    const created = new Map<string, SessionHandle<Session>[]>();
    holds.set(conn, created);
    mine = created;
    conn.onClose(() => {
      for (const list of created.values()) for (const h of list) h.release();
      created.clear();
    });
  }
  const list = mine.get(handle.session.id) ?? [];
  list.push(handle);
  mine.set(handle.session.id, list);
}

/** Gives back one hold of `sessionId`; false when this connection holds none. */
export function releaseHold(conn: RpcConnection, sessionId: string): boolean {
  const list = holds.get(conn)?.get(sessionId);
  const handle = list?.pop();
  if (!handle) return false;
  handle.release();
  return true;
}
