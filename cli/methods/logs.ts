/**
 * `mcpctl logs`: a server's stderr, either kind (`logs.get`), and its new lines as they come
 * (`logs.follow`: `logs.lines` notifications until the connection closes).
 *
 * Guarantees:
 * - Lines are the server's own, scrubbed of its secrets (controller/stderr-log.ts); the CLI
 *   escapes them before they reach a terminal.
 * - A follow holds a cursor and a timer, never lines: every POLL_MS it sends what the server
 *   wrote meanwhile (at most what the pool keeps of it), and nothing while this connection
 *   has more than MAX_UNREAD_BYTES unsent, so a flood and a slow reader cost the daemon a
 *   bounded amount and no other client waits for them; what was missed is counted
 *   (`skipped`).
 * - A follow ends (its timer cleared) when the connection closes, or with `logs.end` when its
 *   session closes; it never sends after that.
 * - An unknown name fails like `describe` (NotFound with the closest names).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { kindNamed, type ServerKind } from '../../api/index.js';
import type { Session } from '../../controller/session.js';
import type { StderrSnapshot } from '../../controller/stderr-log.js';
import { RpcCodes, RpcError } from '../rpc/protocol.js';
import { method, type MethodTable } from '../rpc/methods.js';
import { selectSession, selectorShape, type MethodContext } from './context.js';
import { kindShape, resolveKind } from './servers.js';

/** How often a follow looks for new lines. */
export const POLL_MS = 200;
/** Unsent bytes on a connection past which a follow sends nothing until the client reads. */
export const MAX_UNREAD_BYTES = 1024 * 1024;

/** What `logs.get` and `logs.follow` answer. */
export interface LogsAnswer extends StderrSnapshot {
  /** `server/NAME` or `languageserver/NAME`. */
  readonly object: string;
  /** Why it is not running, when it is not: its Admitted (when False) or Ready condition. */
  readonly notReady?: { readonly reason: string; readonly message: string };
}

export interface LogsFollowAnswer extends LogsAnswer {
  readonly followId: string;
}

/** `logs.lines` params. */
export interface LogsLines {
  readonly followId: string;
  readonly lines: readonly string[];
  readonly skipped: number;
  /** A new process started (its pid) before these lines. */
  readonly restarted?: number;
}

/** `logs.end` params. */
export interface LogsEnd {
  readonly followId: string;
  readonly reason: string;
}

export function logsMethods(ctx: MethodContext): MethodTable {
  const params = z.object({
    ...selectorShape,
    name: z.string().min(1),
    ...kindShape,
  });
  return {
    'logs.get': method(
      params,
      "LogsAnswer: a server's kept stderr lines (either kind), whether it runs and ever ran",
      async (p, call): Promise<LogsAnswer> => {
        const session = await selectSession(ctx, p, call);
        const kind = mustKnow(session, p.name, p.kind);
        return answerOf(session, kind, p.name, session.kind(kind).stderrLog(p.name));
      },
    ),
    'logs.follow': method(
      params,
      'LogsFollowAnswer: the kept stderr lines, then `logs.lines` { followId, lines, skipped, restarted? } as they come, until the connection closes',
      async (p, call): Promise<LogsFollowAnswer> => {
        const session = await selectSession(ctx, p, call);
        const kind = mustKnow(session, p.name, p.kind);
        const follower = session.kind(kind).followStderr(p.name);
        const snapshot = session.kind(kind).stderrLog(p.name);
        const followId = randomUUID();
        const conn = call.conn;
        let timer: NodeJS.Timeout | undefined;
        let offSessions: () => void = () => undefined;
        const stop = () => {
          clearInterval(timer);
          timer = undefined;
          offSessions();
        };
        conn.onClose(stop);
        const lines = follower.start();
        call.afterReply(() => {
          if (conn.closed) return;
          offSessions = ctx.daemon.onSessions((e) => {
            if (e.type !== 'closed' || e.id !== session.id) return;
            stop();
            const end: LogsEnd = { followId, reason: `session ${session.id} closed` };
            conn.notify('logs.end', end);
          });
          timer = setInterval(() => {
            // A client that does not read gets nothing more until it does; the pool's tail
            // keeps the newest lines meanwhile and the next batch says how many it missed.
            if (conn.closed || (conn.pendingWriteBytes ?? 0) > MAX_UNREAD_BYTES) return;
            const batch = follower.poll();
            if (batch.lines.length === 0 && batch.skipped === 0 && batch.restarted === undefined)
              return;
            const message: LogsLines = { followId, ...batch };
            conn.notify('logs.lines', message);
          }, POLL_MS);
        });
        return { ...answerOf(session, kind, p.name, snapshot), lines, followId };
      },
    ),
  };
}

/** The kind `name` is in this session, or the NotFound error `describe` gives. */
function mustKnow(session: Session, name: string, kind: ServerKind | undefined): ServerKind {
  const resolved = resolveKind(session, name, kind);
  if (Object.hasOwn(session.kind(resolved).servers(), name)) return resolved;
  const answer = session.kind(resolved).why(name);
  if (answer.reason === 'Removed')
    throw new RpcError(RpcCodes.NotFound, `${answer.message}; ${answer.action}`);
  throw session.kind(resolved).unknown(name);
}

function answerOf(
  session: Session,
  kind: ServerKind,
  name: string,
  snapshot: StderrSnapshot,
): LogsAnswer {
  const object = kindNamed(kind).objectOf(name);
  if (snapshot.running) return { ...snapshot, object };
  const conditions = session.kind(kind).get(name, {})?.status.conditions ?? [];
  // Not admitted says more than "not ready because not admitted".
  const admitted = conditions.find((c) => c.type === 'Admitted' && c.status === 'False');
  const why = admitted ?? conditions.find((c) => c.type === 'Ready');
  return {
    ...snapshot,
    object,
    ...(why ? { notReady: { reason: why.reason, message: why.message } } : {}),
  };
}
