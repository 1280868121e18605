/**
 * The daemon's OAuth for remote servers, through the SDK's client auth (`auth()`,
 * OAuthClientProvider): the daemon logs in once per server per machine, and every connection
 * to that server uses, and refreshes, the same grant (DESIGN §5). It is the pool's AuthPort
 * (`authFor`), and what `mcpctl login`/`logout` drive.
 *
 * Guarantees:
 * - One Credential per (server URL, client id), shared by every connection and session of the
 *   daemon (credential.ts); its refresh is single-flight and backed off (refresh.ts).
 * - A connection never starts a login: with no grant, or a refresh the server refused
 *   (`invalid_grant`), it fails with LoginRequiredError and its holders are told, so the
 *   server shows `Unauthorized` and waits for `mcpctl login` instead of retrying
 *   (provider.ts).
 * - A connection's fetch retries a request once after a 401 on a token we sent: with the
 *   token someone refreshed meanwhile, else after one refresh; else the 401 stands.
 * - A login is authorization code with PKCE and a random `state` (login.ts); configured
 *   endpoints of a repository's config are checked against the published metadata before
 *   anything is sent to them (discovery.ts).
 * - `logout` forgets the grant in the store and tells every connection that used it.
 * - No token or client secret is ever put in an error message or a warning.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthTarget } from '../api/index.js';
import { scrubSecrets } from '../api/index.js';
import type { AuthPort, ConnectionAuth } from '../pool/index.js';
import { Credentials, type Credential } from './credential.js';
import { authFailureOf } from './errors.js';
import type { OAuthGrantStore } from './grant.js';
import { Logins, type LoginStart } from './login.js';
import { providerOf } from './provider.js';
import { createRefresh, type Refresh } from './refresh.js';

/** The daemon's OAuth: the pool's AuthPort (`authFor`), plus sign-in and sign-out. */
export interface OAuthManager extends AuthPort {
  /** Starts a login (discovery, registration if needed, PKCE); the URL is for the user. */
  beginLogin(target: OAuthTarget, redirectUri: string): Promise<LoginStart>;
  /** Completes the login `state` names with the code the redirect brought. */
  finishLogin(state: string, code: string): Promise<OAuthTarget>;
  /** Forgets the grant; every connection that used it is told to stop. True if there was one. */
  logout(target: OAuthTarget): Promise<boolean>;
  /** Whether a grant with tokens is stored. */
  hasLogin(target: OAuthTarget): Promise<boolean>;
}

export interface OAuthManagerOptions {
  readonly store: OAuthGrantStore;
  readonly now?: () => number;
  /** Every request to the servers (default: the global fetch); tests inject failures here. */
  readonly fetch?: FetchLike;
  /** Counted refresh attempts and failures (never with a token). */
  readonly onWarning?: (message: string) => void;
}

function bearerOf(init: RequestInit | undefined): string | undefined {
  const header = new Headers(init?.headers).get('authorization');
  return header?.toLowerCase().startsWith('bearer ') ? header.slice(7) : undefined;
}

/** `c.fetch`, retrying once after a 401 on a token we sent, with a fresh one. */
function retryingFetch(c: Credential, refresh: Refresh): FetchLike {
  return async (url, init) => {
    const response = await c.fetch(url, init);
    const sent = bearerOf(init);
    if (response.status !== 401 || sent === undefined) return response;
    // Someone refreshed since we sent it: retry with the current token; else refresh once.
    if (c.tokens()?.access_token === sent) {
      try {
        await refresh(c);
      } catch {
        return response;
      }
    }
    const fresh = c.tokens()?.access_token;
    if (fresh === undefined || fresh === sent) return response;
    await response.body?.cancel().catch(() => undefined);
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${fresh}`);
    return c.fetch(url, { ...init, headers });
  };
}

export function createOAuthManager(options: OAuthManagerOptions): OAuthManager {
  const now = options.now ?? Date.now;
  const baseFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const credentials = new Credentials(options.store, now, baseFetch);
  const refresh = createRefresh(options.onWarning);
  const logins = new Logins(now);

  return {
    authFor(target, onLoginRequired): ConnectionAuth {
      const c = credentials.of(target);
      c.listeners.add(onLoginRequired);
      return {
        provider: providerOf(c, { kind: 'connection', refresh: () => refresh(c) }),
        fetch: retryingFetch(c, refresh),
        scrub: (text) => scrubSecrets(text, c.secrets()),
        failureOf: authFailureOf,
        detach: () => {
          credentials.of(target).listeners.delete(onLoginRequired);
          c.listeners.delete(onLoginRequired);
        },
      };
    },

    beginLogin: (target, redirectUri) => logins.begin(credentials.of(target), redirectUri),

    finishLogin: (state, code) => logins.finish(state, code),

    async logout(target) {
      const c = credentials.of(target);
      const removed = await options.store.remove(target.serverUrl, target.settings.clientId);
      c.grant = undefined;
      c.loaded = true;
      c.loginRequired();
      return removed;
    },

    async hasLogin(target) {
      const c = credentials.of(target);
      await c.load();
      return c.tokens() !== undefined;
    },
  };
}
