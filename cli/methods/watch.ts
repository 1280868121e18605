/**
 * Watches (`get … --watch`, `wait`): server→client `watch.event` notifications, Kubernetes
 * watch style (ADDED / MODIFIED / DELETED with the whole object).
 *
 * Guarantees:
 * - The current state arrives first, as ADDED events, right after the `watch.start` response;
 *   after that only real changes are sent (an object equal to the last one sent is skipped).
 * - A watch ends with `watch.end` when its session closes; it is removed by `watch.stop` or
 *   when the connection closes, whichever comes first, and never sends after that.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { KIND_RESOURCES, kindOfResource, type ServerKind } from '../../api/index.js';
import type { Session } from '../../controller/session.js';
import type { WatchEnd, WatchEvent, WatchEventType } from '../objects.js';
import { RpcCodes, RpcError } from '../rpc/protocol.js';
import { method, type MethodTable, type RpcConnection } from '../rpc/methods.js';
import { selectSession, selectorShape, type MethodContext } from './context.js';
import { toSessionObject } from './sessions.js';

type Unsubscribe = () => void;

const watches = new WeakMap<RpcConnection, Map<string, Unsubscribe>>();

export function watchMethods(ctx: MethodContext): MethodTable {
  return {
    'watch.start': method(
      z.object({
        ...selectorShape,
        topic: z.union([z.enum(KIND_RESOURCES), z.enum(['sessions', 'events'])]),
        names: z.array(z.string()).optional(),
        showSecrets: z.boolean().optional(),
      }),
      '{ watchId }: streams `watch.event` { watchId, type, object } notifications, current state first',
      async (p, call) => {
        const watchId = randomUUID();
        const conn = call.conn;
        const send = (type: WatchEventType, object: unknown) => {
          if (!isActive(conn, watchId)) return;
          const event: WatchEvent = { watchId, type, object };
          conn.notify('watch.event', event);
        };
        const end = (reason: string) => {
          if (!isActive(conn, watchId)) return;
          stopWatch(conn, watchId);
          const message: WatchEnd = { watchId, reason };
          conn.notify('watch.end', message);
        };
        let start: () => Unsubscribe;
        if (p.topic === 'sessions') start = () => watchSessions(ctx, send);
        else {
          const session = await selectSession(ctx, p, call);
          const untilClosed = (inner: () => Unsubscribe) => () => {
            const offInner = inner();
            const offClosed = ctx.daemon.onSessions((e) => {
              if (e.type === 'closed' && e.id === session.id) end(`session ${session.id} closed`);
            });
            return () => {
              offInner();
              offClosed();
            };
          };
          const showSecrets = p.showSecrets ?? false;
          const kind = kindOfResource(p.topic);
          start =
            kind === undefined
              ? untilClosed(() => watchEvents(session, send))
              : untilClosed(() => watchKind(session, kind, send, p.names, showSecrets));
        }
        register(conn, watchId);
        // Subscribing after the reply: the first ADDED events follow the response.
        call.afterReply(() => {
          if (!isActive(conn, watchId)) return;
          const off = start();
          watches.get(conn)?.set(watchId, off);
        });
        return { watchId };
      },
    ),
    'watch.stop': method(
      z.object({ watchId: z.string().min(1) }),
      'ends a watch of this connection',
      (p, call) => {
        if (!stopWatch(call.conn, p.watchId))
          throw new RpcError(RpcCodes.NotFound, `this connection has no watch ${p.watchId}`);
        return {};
      },
    ),
  };
}

function register(conn: RpcConnection, watchId: string): void {
  let mine = watches.get(conn);
  if (!mine) {
    const created = new Map<string, Unsubscribe>();
    watches.set(conn, created);
    mine = created;
    conn.onClose(() => {
      for (const off of created.values()) off();
      created.clear();
    });
  }
  mine.set(watchId, () => undefined);
}

function isActive(conn: RpcConnection, watchId: string): boolean {
  return !conn.closed && (watches.get(conn)?.has(watchId) ?? false);
}

function stopWatch(conn: RpcConnection, watchId: string): boolean {
  const mine = watches.get(conn);
  const off = mine?.get(watchId);
  if (!mine || !off) return false;
  mine.delete(watchId);
  off();
  return true;
}

/** Sends an object only when it differs from the last one sent under its key. */
class ChangeFilter {
  readonly #sent = new Map<string, string>();

  constructor(private readonly send: (type: WatchEventType, object: unknown) => void) {}

  update(key: string, object: unknown): void {
    const previous = this.#sent.get(key);
    if (object === undefined) {
      if (previous === undefined) return;
      this.#sent.delete(key);
      this.send('DELETED', JSON.parse(previous));
      return;
    }
    const json = JSON.stringify(object);
    if (json === previous) return;
    this.#sent.set(key, json);
    this.send(previous === undefined ? 'ADDED' : 'MODIFIED', object);
  }

  keys(): string[] {
    return [...this.#sent.keys()];
  }
}

/** What a watch of one kind of server needs of the session. */
interface WatchedKind {
  /** The names configured now. */
  configured(): string[];
  /** The object of `name` now; undefined when it is gone. */
  get(name: string): unknown;
  /** Calls `sync(name)` when that one may have changed, `sync()` when any may have. */
  subscribe(sync: (name?: string) => void): Unsubscribe;
}

/** Every object of one kind (only `names`, if given), then each change of one. */
function watchObjects(
  send: (type: WatchEventType, object: unknown) => void,
  names: readonly string[] | undefined,
  kind: WatchedKind,
): Unsubscribe {
  const filter = new ChangeFilter(send);
  const wanted = (name: string) => !names?.length || names.includes(name);
  const sync = (name?: string) => {
    const all =
      name !== undefined ? [name] : [...new Set([...filter.keys(), ...kind.configured()])];
    for (const n of all.sort()) if (wanted(n)) filter.update(n, kind.get(n));
  };
  sync();
  return kind.subscribe(sync);
}

/**
 * Every object of one kind, then each change: a pass over one of the kind (its `change`), what
 * serves one (`registry`), or a change of the session itself, which may touch any.
 */
function watchKind(
  session: Session,
  kind: ServerKind,
  send: (type: WatchEventType, object: unknown) => void,
  names: readonly string[] | undefined,
  showSecrets: boolean,
): Unsubscribe {
  const of = session.kind(kind);
  return watchObjects(send, names, {
    configured: () => Object.keys(of.servers()),
    get: (name) => of.get(name, { showSecrets }),
    subscribe: (sync) => {
      const offChange = session.on('change', (name, changed) => {
        if (name === undefined) sync();
        else if (changed === kind) sync(name);
      });
      const offRegistry = session.on('registry', (name, changed) => {
        if (changed === kind) sync(name);
      });
      return () => {
        offChange();
        offRegistry();
      };
    },
  });
}

function watchEvents(
  session: Session,
  send: (type: WatchEventType, object: unknown) => void,
): Unsubscribe {
  for (const e of session.eventList()) send('ADDED', e);
  return session.events.onEvent((e) => send(e.count > 1 ? 'MODIFIED' : 'ADDED', e));
}

function watchSessions(
  ctx: MethodContext,
  send: (type: WatchEventType, object: unknown) => void,
): Unsubscribe {
  const filter = new ChangeFilter(send);
  const perSession = new Map<string, Unsubscribe>();
  // Its agents as they are at each change of the session (agents coming and going are no change).
  const objectOf = (session: Session) =>
    toSessionObject(session, ctx.daemon.sessions().find((i) => i.session === session)?.agents);
  const follow = (session: Session) => {
    if (perSession.has(session.id)) return;
    filter.update(session.id, objectOf(session));
    perSession.set(
      session.id,
      session.on('change', () => filter.update(session.id, objectOf(session))),
    );
  };
  for (const info of ctx.daemon.sessions()) follow(info.session);
  const offTable = ctx.daemon.onSessions((e) => {
    if (e.type === 'opened') {
      const s = ctx.daemon.session(e.id);
      if (s) follow(s);
    } else {
      perSession.get(e.id)?.();
      perSession.delete(e.id);
      filter.update(e.id, undefined);
    }
  });
  return () => {
    offTable();
    for (const off of perSession.values()) off();
    perSession.clear();
  };
}
