/**
 * The list and describe methods of each kind, made from its descriptor: `servers.list` /
 * `servers.describe` for MCP servers, `languageservers.list` / `languageservers.describe` for
 * language servers (the kind's `resource`). Decisions and `why` take a `kind` instead
 * (servers.ts), so one place decides for both kinds.
 *
 * Guarantees: env and header values are redacted unless the call says `showSecrets`; a name
 * the session had but no longer has fails with NotFound and why's sentence (removed, and how
 * to add it back); any other unknown name with NotFound and the closest names of the kind.
 */
import { z } from 'zod';
import { kindNamed, SERVER_KINDS, type ServerKind } from '../../api/index.js';
import type { Session } from '../../controller/session.js';
import {
  serverListOf,
  type DescriptionOf,
  type ServerListOf,
  type ServerObjects,
} from '../objects.js';
import { RpcCodes, RpcError } from '../rpc/protocol.js';
import { method, type MethodTable } from '../rpc/methods.js';
import { selectSession, selectorShape, type MethodContext } from './context.js';
import { descriptionOf } from './description.js';

const listParams = z.object({
  ...selectorShape,
  names: z.array(z.string()).optional(),
  showSecrets: z.boolean().optional(),
});

const describeParams = z.object({
  ...selectorShape,
  name: z.string().min(1),
  showSecrets: z.boolean().optional(),
});

/** Both methods of every kind. */
export function kindObjectMethods(ctx: MethodContext): MethodTable {
  return Object.assign({}, ...SERVER_KINDS.map((kind) => methodsOf(ctx, kind))) as MethodTable;
}

function methodsOf<K extends ServerKind>(ctx: MethodContext, kind: K): MethodTable {
  const { resource } = kindNamed(kind);
  return {
    [`${resource}.list`]: method(
      listParams,
      `${kind}List of the session (only \`names\`, if given; each must exist)`,
      async (p, call): Promise<ServerListOf<K>> => {
        const session = await selectSession(ctx, p, call);
        const opts = { showSecrets: p.showSecrets ?? false };
        const items = p.names?.length
          ? p.names.map((n) => mustGet(session, kind, n, opts))
          : (session.kind(kind).list(opts) as ServerObjects[K][]);
        return serverListOf(kind, items);
      },
    ),
    [`${resource}.describe`]: method(
      describeParams,
      `one ${kind} with its recent stderr (when not Ready) and its events`,
      async (p, call): Promise<DescriptionOf<ServerObjects[K]>> => {
        const session = await selectSession(ctx, p, call);
        const server = mustGet(session, kind, p.name, { showSecrets: p.showSecrets ?? false });
        return descriptionOf(session, kind, p.name, server);
      },
    ),
  };
}

/** The object of `name` as the session shows it now, or the NotFound that says why not. */
export function mustGet<K extends ServerKind>(
  session: Session,
  kind: K,
  name: string,
  opts: { showSecrets?: boolean },
): ServerObjects[K] {
  const of = session.kind(kind);
  // The kinds' objects differ only in type: the session's face is keyed by the same kind.
  const server = of.get(name, opts) as ServerObjects[K] | undefined;
  if (server) return server;
  const answer = of.why(name);
  if (answer.reason === 'Removed')
    throw new RpcError(RpcCodes.NotFound, `${answer.message}; ${answer.action}`);
  throw of.unknown(name);
}
