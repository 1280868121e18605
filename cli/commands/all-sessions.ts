/**
 * `-A/--all-sessions` of the read commands (`get servers|languageservers|events`, `why`): one
 * session's answer asked of every open session of the daemon (as kubectl's `-A` is every
 * namespace), each item saying whose it is.
 *
 * Guarantees:
 * - Every item of a list carries its session in `metadata.annotations["mcpctl.dev/session"]`
 *   (an event, which has no metadata, gets one holding only that); a table prints it as a
 *   first SESSION column. Nothing else of an item changes.
 * - A session that closes between the listing of sessions and the call to it is left out
 *   (it has nothing to show any more); any other failure fails the command.
 * - `-A` with `--session`, with `--watch`, or on a daemon-wide list (sessions, connections) is
 *   bad usage (exit 2) naming the pair, never a silent choice of one.
 */
import { ANNOTATION_SESSION } from '../../api/index.js';
import { UsageError } from '../errors.js';
import type { ListLike } from '../output/format.js';
import type { ObjectPrinter } from '../output/printers.js';
import { RpcCallError, type RpcClient } from '../rpc/client.js';
import { RpcCodes } from '../rpc/protocol.js';
import type { SessionList } from '../objects.js';

/** An item as `-A` annotates it: whatever it was, with its session in its metadata. */
type Annotated = { metadata?: { annotations?: Record<string, string> } };

/** The usage errors of `-A` with what it cannot go with; nothing when it is fine. */
export function checkAllSessions(opts: {
  readonly allSessions?: boolean;
  readonly session?: string;
  readonly watch?: boolean;
  readonly daemonWide?: string;
}): void {
  if (opts.allSessions !== true) return;
  if (opts.session !== undefined)
    throw new UsageError('-A (every session) and --session NAME (one session) exclude each other');
  if (opts.watch === true)
    throw new UsageError('-A is not available with --watch; watch one session with --session NAME');
  if (opts.daemonWide !== undefined)
    throw new UsageError(`-A is not needed for ${opts.daemonWide}: they are the daemon's already`);
}

/** The session an item was listed from (`-A`), or undefined. */
export function sessionOf(item: unknown): string | undefined {
  return (item as Annotated).metadata?.annotations?.[ANNOTATION_SESSION];
}

/**
 * `call(sessionId)` for every open session, in `get sessions`' order; a session gone by the
 * time it is asked is skipped.
 */
export async function eachSession<R>(
  client: RpcClient,
  call: (sessionId: string) => Promise<R>,
): Promise<Array<{ session: string; answer: R }>> {
  const sessions = await client.call<SessionList>('sessions.list', {});
  const out: Array<{ session: string; answer: R }> = [];
  for (const s of sessions.items) {
    try {
      out.push({ session: s.metadata.name, answer: await call(s.metadata.name) });
    } catch (err) {
      if (isGoneSession(err, s.metadata.name)) continue;
      throw err;
    }
  }
  return out;
}

/** Every session's list of `method`, as one list of annotated items. */
export async function listAllSessions<T>(
  client: RpcClient,
  method: string,
  params: object,
): Promise<ListLike<T>> {
  const answers = await eachSession(client, (sessionId) =>
    client.call<ListLike<T>>(method, { ...params, sessionId }),
  );
  const first = answers[0]?.answer;
  return {
    apiVersion: first?.apiVersion ?? 'mcpctl.dev/v1alpha1',
    kind: first?.kind ?? 'List',
    items: answers.flatMap(({ session, answer }) =>
      answer.items.map((item) => annotated(item, session)),
    ),
  };
}

function annotated<T>(item: T, session: string): T {
  const it = item as T & Annotated;
  return {
    ...it,
    metadata: {
      ...it.metadata,
      annotations: { ...it.metadata?.annotations, [ANNOTATION_SESSION]: session },
    },
  };
}

/** `printer` with a first SESSION column (and the session in a watch's identity). */
export function withSessionColumn<T>(printer: ObjectPrinter<T>): ObjectPrinter<T> {
  return {
    plural: printer.plural,
    headers: (wide) => ['SESSION', ...printer.headers(wide)],
    row: (item, now, wide, style) => [
      sessionOf(item) ?? '<none>',
      ...printer.row(item, now, wide, style),
    ],
    name: (item) => printer.name(item),
    key: (item) => `${sessionOf(item) ?? ''}\u0000${printer.key(item)}`,
  };
}

/** The daemon said the session is not there (closed since it was listed). */
function isGoneSession(err: unknown, id: string): boolean {
  return (
    err instanceof RpcCallError &&
    err.code === RpcCodes.NotFound &&
    (err.message.startsWith(`no session named ${id};`) ||
      err.message.startsWith(`session ${id} closed`))
  );
}
