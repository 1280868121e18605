/**
 * The SDK's OAuthClientProvider over one Credential, in the mode of whoever drives the SDK's
 * `auth()`: a connection, our refresh, or a login.
 *
 * Guarantees:
 * - A connection never starts a login and never registers a client: with no grant, or a grant
 *   the server refused, it tells the grant's listeners and fails with LoginRequiredError; a
 *   401 from a server that publishes no OAuth metadata fails with NoOAuthMetadataError.
 * - A connection never refreshes by itself: it sees its tokens without the refresh token, and
 *   a token that expires soon is renewed through `mode.refresh` (single-flight, backed off)
 *   before it is handed out. A connection whose grant still holds a refresh token waits for
 *   the next refresh rather than asking for a login.
 * - A refresh that never reached the token endpoint (`unreachable`) proves nothing about the
 *   grant: it ends in a failed refresh, not in a login.
 * - A login always asks anew (no stored tokens), registers again when its redirect URI is not
 *   covered by the registration it has (registration.ts), keeps that registration only once
 *   the code is exchanged, adds the configured `audience` to the authorization URL, and keeps
 *   its PKCE verifier in the login, never in the store.
 * - `invalid_grant` drops the tokens (the user must log in again); the store keeps the client.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthClientInformationFullSchema,
  type OAuthClientInformationMixed,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { addAudience } from './audience.js';
import type { Credential } from './credential.js';
import { LoginRequiredError, NoOAuthMetadataError, refreshFailed } from './errors.js';
import { clientMetadataOf, sameRedirect } from './registration.js';

/** Where a connection says it would redirect to (never used: connections do not log in). */
const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';

/** What a login's provider records while the SDK's `auth()` runs it (login.ts keeps the rest). */
export interface LoginInProgress {
  readonly state: string;
  verifier?: string;
  authorizationUrl?: URL;
  /** A client registered for this login's redirect, kept until the login completes. */
  client?: OAuthClientInformationMixed;
}

export type Mode =
  /** A connection's own auth; `refresh` renews the shared grant (refresh.ts). */
  | { readonly kind: 'connection'; readonly refresh: () => Promise<void> }
  /**
   * The refresh run by `auth()` itself: tokens as stored, no refresh inside. `unreachable`:
   * the token request failed in transit (the SDK then falls through to a new authorization,
   * which must not be mistaken for a refused grant).
   */
  | { readonly kind: 'refresh'; unreachable: boolean }
  | { readonly kind: 'login'; readonly redirectUrl: string; readonly login: LoginInProgress };

export function providerOf(c: Credential, mode: Mode): OAuthClientProvider {
  const redirectUrl =
    mode.kind === 'login'
      ? mode.redirectUrl
      : (c.target.settings.redirectUri ?? PLACEHOLDER_REDIRECT);
  const required = (): LoginRequiredError => new LoginRequiredError(c.target.serverUrl);
  return {
    redirectUrl,
    clientMetadata: clientMetadataOf(c.target, redirectUrl),
    state: () => (mode.kind === 'login' ? mode.login.state : ''),
    clientInformation: async () => {
      await c.load();
      if (mode.kind === 'login') {
        if (mode.login.client) return mode.login.client;
        const info = c.clientInformation();
        // A dynamic client registered for another redirect URI registers again.
        if (c.target.settings.clientId === undefined) {
          const uris = OAuthClientInformationFullSchema.safeParse(info).data?.redirect_uris;
          if (!uris?.some((u) => sameRedirect(u, mode.redirectUrl))) return undefined;
        }
        return info;
      }
      const info = c.clientInformation();
      const d = c.discovery;
      if (!info && d && !d.authorizationServerMetadata && !d.resourceMetadata)
        throw new NoOAuthMetadataError(c.target.serverUrl);
      // Never register from a connection: that is the login's job.
      if (!info) {
        c.loginRequired();
        throw required();
      }
      return info;
    },
    saveClientInformation: async (info) => {
      if (mode.kind === 'login') mode.login.client = info;
      else await c.saveClient(info);
    },
    tokens: async () => {
      await c.load();
      if (mode.kind === 'login') return undefined; // a login always asks anew
      if (mode.kind === 'connection' && c.expiringSoon()) {
        await mode.refresh().catch(() => undefined);
      }
      const tokens = c.tokens();
      if (mode.kind !== 'connection' || tokens === undefined) return tokens;
      // Without the refresh token the SDK never refreshes from a connection's own auth()
      // (after a 401): every refresh is ours, single-flight and backed off.
      return { ...tokens, refresh_token: undefined };
    },
    saveTokens: async (tokens) => {
      if (mode.kind === 'login' && mode.login.client) {
        await c.saveClient(mode.login.client);
        mode.login.client = undefined;
      }
      await c.saveTokens(tokens);
    },
    redirectToAuthorization: (url) => {
      // A refresh that never reached the token endpoint proves nothing about the grant.
      if (mode.kind === 'refresh' && mode.unreachable) throw refreshFailed(c.target.serverUrl);
      // A connection that still holds a refresh token waits for the next refresh, not a login.
      if (mode.kind === 'connection' && c.tokens()?.refresh_token !== undefined)
        throw refreshFailed(c.target.serverUrl);
      if (mode.kind !== 'login') {
        c.loginRequired();
        throw required();
      }
      addAudience(url, c.target.settings);
      mode.login.authorizationUrl = url;
    },
    saveCodeVerifier: (verifier) => {
      if (mode.kind === 'login') mode.login.verifier = verifier;
    },
    codeVerifier: () => {
      if (mode.kind !== 'login' || mode.login.verifier === undefined) throw required();
      return mode.login.verifier;
    },
    invalidateCredentials: async (scope) => {
      // invalid_grant: the refresh token is dead; the user must log in again.
      if (scope === 'tokens' || scope === 'all') await c.dropTokens();
      if (scope === 'discovery' || scope === 'all') c.resetDiscovery();
    },
    saveDiscoveryState: (state) => {
      c.discovery = state;
    },
    discoveryState: () => c.discoveryState(),
  };
}
