/**
 * Methods about the language servers of one session (issue #24): list and describe. Decisions
 * and `why` go through the servers.* methods with a `kind` (servers.ts), so there is one place
 * that decides, for both kinds.
 *
 * Guarantees: env values are redacted unless the call says `showSecrets`; an unknown name fails
 * with NotFound and the closest language server names.
 */
import { z } from 'zod';
import { LANGUAGE_SERVERS } from '../../api/index.js';
import type { Session } from '../../controller/session.js';
import {
  languageServerList,
  type LanguageServer,
  type LanguageServerDescription,
  type LanguageServerList,
} from '../objects.js';
import { method, type MethodTable } from '../rpc/methods.js';
import { selectSession, selectorShape, type MethodContext } from './context.js';
import { descriptionOf } from './description.js';

export function languageServerMethods(ctx: MethodContext): MethodTable {
  return {
    'languageservers.list': method(
      z.object({
        ...selectorShape,
        names: z.array(z.string()).optional(),
        showSecrets: z.boolean().optional(),
      }),
      'LanguageServerList of the session (only `names`, if given; each must exist)',
      async (p, call): Promise<LanguageServerList> => {
        const session = await selectSession(ctx, p, call);
        const opts = { showSecrets: p.showSecrets ?? false };
        if (!p.names?.length)
          return languageServerList(session.kind(LANGUAGE_SERVERS.kind).list(opts));
        return languageServerList(p.names.map((n) => mustGetLanguageServer(session, n, opts)));
      },
    ),
    'languageservers.describe': method(
      z.object({
        ...selectorShape,
        name: z.string().min(1),
        showSecrets: z.boolean().optional(),
      }),
      'one LanguageServer with its recent stderr (when not Ready) and its events',
      async (p, call): Promise<LanguageServerDescription> => {
        const session = await selectSession(ctx, p, call);
        const server = mustGetLanguageServer(session, p.name, {
          showSecrets: p.showSecrets ?? false,
        });
        return descriptionOf(session, LANGUAGE_SERVERS.kind, p.name, server);
      },
    ),
  };
}

export function mustGetLanguageServer(
  session: Session,
  name: string,
  opts: { showSecrets?: boolean },
): LanguageServer {
  const server = session.kind(LANGUAGE_SERVERS.kind).get(name, opts);
  if (server) return server;
  throw session.kind(LANGUAGE_SERVERS.kind).unknown(name);
}
