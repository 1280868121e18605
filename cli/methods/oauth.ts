/**
 * OAuth sign-in methods (`mcpctl login` / `logout`, DESIGN §5 "One login per server per
 * machine").
 *
 * Guarantees: a login is for a server the selected session admits and runs (a gated server is
 * never contacted before approval); the answer never holds a token or a client secret (only
 * the authorization URL, which carries the PKCE challenge and `state`, both public by design);
 * `oauth.loginFinish` answers after every session settled, with the server's `why` answer; a
 * failure's message is never empty.
 */
import { MCP_SERVERS } from '../../api/index.js';
import { z } from 'zod';
import type { WhyAnswer } from '../../controller/session.js';
import { RpcCodes, RpcError } from '../rpc/protocol.js';
import { method, type MethodTable } from '../rpc/methods.js';
import { selectSession, selectorShape, type MethodContext } from './context.js';
import { messageOf } from '../errors.js';

const loopbackUri = z
  .string()
  .max(2048)
  .refine((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' && (u.hostname === '127.0.0.1' || u.hostname === 'localhost');
    } catch {
      return false;
    }
  }, 'must be an http://127.0.0.1:PORT/... loopback URL');

function failed(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  const name = err instanceof Error ? err.name : '';
  // Domain errors are mapped by the server; the SDK's OAuth errors say what went wrong.
  if (name === 'ServerUnavailableError' || name === 'UnknownServerError') throw err;
  const message = messageOf(err);
  // Never an empty answer: the user must learn what failed.
  return new RpcError(
    RpcCodes.Failed,
    message.trim() !== ''
      ? message
      : `the OAuth step failed (${err instanceof Error ? err.name : typeof err}, no description)`,
  );
}

export function oauthMethods(ctx: MethodContext): MethodTable {
  return {
    'oauth.loginPlan': method(
      z.object({ ...selectorShape, name: z.string().min(1) }),
      '{ redirectUri }: the configured oauth.redirectUri of a server (null: any free port)',
      async (p, call): Promise<{ redirectUri: string | null }> => {
        const session = await selectSession(ctx, p, call);
        return { redirectUri: session.oauthTarget(p.name).settings.redirectUri ?? null };
      },
    ),
    'oauth.loginStart': method(
      z.object({ ...selectorShape, name: z.string().min(1), redirectUri: loopbackUri }),
      '{ authorizationUrl, state }: starts an OAuth login (PKCE) for a server of the session',
      async (p, call): Promise<{ authorizationUrl: string; state: string }> => {
        const session = await selectSession(ctx, p, call);
        try {
          return await ctx.daemon.loginStart(session, p.name, p.redirectUri);
        } catch (err) {
          throw failed(err);
        }
      },
    ),
    'oauth.loginFinish': method(
      z.object({
        ...selectorShape,
        name: z.string().min(1),
        state: z.string().min(1).max(512),
        code: z.string().min(1).max(4096),
      }),
      'WhyAnswer of the server: completes the login `state` names; answers when settled',
      async (p, call): Promise<WhyAnswer> => {
        const session = await selectSession(ctx, p, call);
        try {
          await ctx.daemon.loginFinish(p.state, p.code);
        } catch (err) {
          throw failed(err);
        }
        return session.kind(MCP_SERVERS.kind).why(p.name);
      },
    ),
    'oauth.logout': method(
      z.object({ ...selectorShape, name: z.string().min(1) }),
      '{ removed, server }: forgets the OAuth tokens a server uses and disconnects it everywhere',
      async (p, call): Promise<{ removed: boolean; server: WhyAnswer }> => {
        const session = await selectSession(ctx, p, call);
        let removed: boolean;
        try {
          removed = await ctx.daemon.logout(session, p.name);
        } catch (err) {
          throw failed(err);
        }
        return { removed, server: session.kind(MCP_SERVERS.kind).why(p.name) };
      },
    ),
  };
}
