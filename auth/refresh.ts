/**
 * Renewing a grant's tokens with its refresh token, through the SDK's `auth()`.
 *
 * Guarantees:
 * - Single-flight per grant: concurrent callers (an access token about to expire, a 401 on a
 *   token we sent) wait for the same refresh request.
 * - Tokens are replaced in place: nothing reconnects (the connectionId holds no token).
 * - Only a refusal (`invalid_grant`) asks for a login: the grant's listeners are told and the
 *   refresh fails with LoginRequiredError.
 * - Any other failure — above all an authorization server that cannot be reached (the token
 *   request throws, or answers 5xx) — keeps the tokens, warns (never with a token), and is
 *   not tried again for that grant before its backoff (refresh-backoff.ts) has passed: until
 *   then a refresh fails at once and sends nothing. A success resets the backoff.
 */
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { redactUrl } from '../api/index.js';
import type { Credential } from './credential.js';
import { LoginRequiredError, refreshFailed } from './errors.js';
import { providerOf } from './provider.js';
import { scopeOf } from './registration.js';

/** Renews the tokens of a Credential (single-flight, backed off). */
export type Refresh = (c: Credential) => Promise<void>;

/**
 * The token request of a refresh, watched: a request that throws (unreachable) or a 5xx
 * marks the refresh as unreachable rather than refused.
 */
function watchedFetch(c: Credential, mode: { unreachable: boolean }): FetchLike {
  return async (url, init) => {
    const isTokenRequest =
      init?.body instanceof URLSearchParams && init.body.get('grant_type') === 'refresh_token';
    try {
      const response = await c.fetch(url, init);
      if (isTokenRequest && response.status >= 500) mode.unreachable = true;
      return response;
    } catch (err) {
      if (isTokenRequest) mode.unreachable = true;
      throw err;
    }
  };
}

/** `onWarning` hears of every failed attempt and the wait before the next one. */
export function createRefresh(onWarning?: (message: string) => void): Refresh {
  return function refresh(c: Credential): Promise<void> {
    // Backing off after an unreachable authorization server: fail at once, send nothing.
    if (!c.refreshing && c.backoff.waitLeft() > 0)
      return Promise.reject(refreshFailed(c.target.serverUrl));
    c.refreshing ??= (async () => {
      const mode = { kind: 'refresh' as const, unreachable: false };
      try {
        const result = await auth(providerOf(c, mode), {
          serverUrl: c.target.serverUrl,
          scope: scopeOf(c.target),
          fetchFn: watchedFetch(c, mode),
        });
        if (result !== 'AUTHORIZED') throw new LoginRequiredError(c.target.serverUrl);
        c.backoff.succeeded();
      } catch (err) {
        if (err instanceof LoginRequiredError && !mode.unreachable) {
          c.loginRequired();
          throw err;
        }
        // A network hiccup or a server error: keep the tokens; try again after the backoff.
        const waitMs = c.backoff.failed();
        onWarning?.(
          `OAuth refresh for ${redactUrl(c.target.serverUrl)} failed (${mode.unreachable ? 'authorization server unreachable' : err instanceof Error ? err.name : 'error'}); next try in ${Math.round(waitMs / 1000)} s`,
        );
        throw refreshFailed(c.target.serverUrl);
      }
    })().finally(() => {
      c.refreshing = undefined;
    });
    return c.refreshing;
  };
}
