/**
 * What every daemon method needs: the daemon, the calling connection's session holds, and
 * the one rule for picking a session from a request.
 *
 * Session selection (the CLI's `--workspace`, DESIGN §7):
 * 1. `sessionId` given (the CLI's `--session`) → that session, or the one session whose id it
 *    begins (session-names.ts); else NotFound naming the sessions there are.
 * 2. `workspace` given → the open session whose workspace realpath matches (one an agent
 *    holds preferred, then the default one). None: with `openIfMissing` (the user named the workspace) a session is opened
 *    for it and held by this connection until it closes; without (the CLI's current folder),
 *    the session whose workspace is its nearest ancestor (a command run in a subfolder of a
 *    project acts on that project), else the daemon's default session — unless the
 *    method decides about servers (`fallback: false`), which then fails with NotFound and the
 *    fix, so a decision is never made in another project's session by accident.
 * 3. Nothing given → the default session (with `fallback: false`: NotFound, as above).
 * `resolveSession` also says how the session was found, so the CLI can say when it acts on a
 * session that is not the current folder's.
 *
 * Holds: a session opened for a connection is released when the connection closes, including
 * one whose open was still in flight when the client hung up (it is released the moment it
 * exists). No connection, however short-lived, leaves a session open.
 */
import path from 'node:path';
import { z } from 'zod';
import type { Daemon, AgentOpener, SessionHandle, SessionSpec } from '../../controller/daemon.js';
import type { Session } from '../../controller/session.js';
import { RpcCodes, RpcError, type ReconnectMode } from '../rpc/protocol.js';
import type { StopNotices } from '../rpc/stop-notices.js';
import type { CallContext, RpcConnection } from '../rpc/methods.js';
import { pickSession } from './session-names.js';

export interface MethodContext {
  readonly daemon: Daemon;
  readonly socketPath: string;
  readonly version: string;
  /**
   * Starts the daemon's graceful shutdown (call it after the reply is written); `reconnect`
   * is what the agents' serves are told to do (default: at their next request).
   */
  requestStop(reason: string, reconnect?: ReconnectMode): void;
  /** The agent connections told about a stop before it closes them. */
  readonly stopNotices: StopNotices;
  /** The daemon's log, for problems no caller hears about (an agent's gateway). */
  log(message: string): void;
}

/** Params every session-scoped method accepts. */
export const selectorShape = {
  sessionId: z.string().min(1).optional(),
  workspace: z.string().min(1).optional(),
  openIfMissing: z.boolean().optional(),
};

export type Selector = { sessionId?: string; workspace?: string; openIfMissing?: boolean };

/**
 * How a selector found its session: by id, by its workspace (or an enclosing one), opened for
 * it, or the daemon's default session because nothing matched (`default`, the case to say).
 */
export type SessionMatch = 'id' | 'workspace' | 'enclosing' | 'opened' | 'default';

export interface SelectOptions {
  /** False: a `workspace` that matches no session fails instead of using the default one. */
  readonly fallback?: boolean;
}

export async function selectSession(
  ctx: MethodContext,
  sel: Selector,
  call: CallContext,
  options: SelectOptions = {},
): Promise<Session> {
  return (await resolveSession(ctx, sel, call, options)).session;
}

export async function resolveSession(
  ctx: MethodContext,
  sel: Selector,
  call: CallContext,
  options: SelectOptions = {},
): Promise<{ session: Session; match: SessionMatch }> {
  const { daemon } = ctx;
  if (sel.sessionId !== undefined) {
    const picked = pickSession(
      sel.sessionId,
      daemon.sessions().map((i) => i.session.id),
    );
    const s = 'id' in picked ? daemon.session(picked.id) : undefined;
    if (!s)
      throw new RpcError(
        RpcCodes.NotFound,
        'error' in picked
          ? picked.error
          : `session ${sel.sessionId} closed; run mcpctl get sessions`,
      );
    return { session: s, match: 'id' };
  }
  if (sel.workspace !== undefined) {
    const found = daemon.findByWorkspace(sel.workspace);
    if (found) return { session: found, match: 'workspace' };
    if (sel.openIfMissing) {
      const { session } = await openHeld(ctx, call.conn, { workspace: sel.workspace });
      // A fresh session answers about settled state, not a half-started one.
      await session.settled();
      return { session, match: 'opened' };
    }
    // Not named by the user (the CLI's cwd): a subfolder of a project means that project.
    const enclosing = enclosingSession(daemon, sel.workspace);
    if (enclosing) return { session: enclosing, match: 'enclosing' };
  }
  if (options.fallback === false)
    throw new RpcError(
      RpcCodes.NotFound,
      `${sel.workspace === undefined ? 'no session named (the current folder is unknown)' : `no session for ${sel.workspace}`}, and a decision is never made in the daemon's default session (${daemon.defaultSession.workspace}) by accident: run the command in the project's folder, or pass --workspace DIR`,
    );
  return { session: daemon.defaultSession, match: 'default' };
}

/** The session whose workspace is the nearest ancestor of `dir` (the default one on a tie). */
function enclosingSession(daemon: Daemon, dir: string): Session | undefined {
  let best: Session | undefined;
  for (const { session } of daemon.sessions()) {
    const rel = path.relative(session.workspace, dir);
    const inside =
      rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
    if (!inside) continue;
    const nearer = best === undefined || session.workspace.length > best.workspace.length;
    const tie = best !== undefined && session.workspace.length === best.workspace.length;
    if (nearer || (tie && session === daemon.defaultSession)) best = session;
  }
  return best;
}

/**
 * The sessions one connection holds. Bound to the connection from the first hold on, and
 * still correct for a hold that arrives after the connection closed (an open that was in
 * flight when the client hung up): that one is given back at once.
 */
class ConnectionHolds {
  readonly #byId = new Map<string, SessionHandle<Session>[]>();
  #closed = false;

  constructor(conn: RpcConnection) {
    // Runs at once when the connection is already closed.
    conn.onClose(() => {
      this.#closed = true;
      for (const list of this.#byId.values()) for (const h of list) h.release();
      this.#byId.clear();
    });
  }

  /** False (and released) when the connection is gone. */
  add(handle: SessionHandle<Session>): boolean {
    if (this.#closed) {
      handle.release();
      return false;
    }
    const list = this.#byId.get(handle.session.id) ?? [];
    list.push(handle);
    this.#byId.set(handle.session.id, list);
    return true;
  }

  release(sessionId: string): boolean {
    const handle = this.#byId.get(sessionId)?.pop();
    if (!handle) return false;
    handle.release();
    return true;
  }
}

const holds = new WeakMap<RpcConnection, ConnectionHolds>();

function holdsOf(conn: RpcConnection): ConnectionHolds {
  let mine = holds.get(conn);
  if (!mine) {
    mine = new ConnectionHolds(conn);
    holds.set(conn, mine);
  }
  return mine;
}

/**
 * Opens (or joins) a session held by the connection until it closes (or calls
 * `session.close`). A connection that closes while the open is in flight holds nothing: the
 * session is given back as soon as it exists, and the caller gets an error nobody reads.
 * `agent`: the agent this hold is for (`get sessions` lists it while held). The handle is the
 * connection's to release; the caller may only `identify` its agent with it.
 */
export async function openHeld(
  ctx: MethodContext,
  conn: RpcConnection,
  spec: SessionSpec,
  agent?: AgentOpener,
): Promise<SessionHandle<Session>> {
  const mine = holdsOf(conn); // Bound to the connection before the open starts.
  const handle = await ctx.daemon.open(spec, agent);
  if (!mine.add(handle))
    throw new RpcError(RpcCodes.Failed, 'the connection closed while its session was opening');
  return handle;
}

/** Gives back one hold of `sessionId`; false when this connection holds none. */
export function releaseHold(conn: RpcConnection, sessionId: string): boolean {
  return holds.get(conn)?.release(sessionId) ?? false;
}
