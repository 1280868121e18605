/**
 * OAuth for remote servers, through the SDK's client auth (`auth()`, OAuthClientProvider): the
 * daemon logs in once per server per machine, and every connection to that server uses, and
 * refreshes, the same grant (DESIGN §5).
 *
 * Guarantees:
 * - One Credential per (server URL, client id), shared by every connection and session of the
 *   daemon. A refresh is single-flight: concurrent requests that need one (an access token
 *   about to expire, or a 401 on a token we sent) wait for the same refresh request.
 * - A connection never starts a login: with no grant, or a refresh the server refused
 *   (`invalid_grant`), it fails with LoginRequiredError and its holders are told, so the
 *   server shows `Unauthorized` and waits for `mcpctl login` instead of retrying.
 * - A login is authorization code with PKCE and a random `state`; the code is accepted only
 *   with the `state` it was issued for, once, within LOGIN_TTL_MS.
 * - A refresh replaces tokens in place: nothing reconnects (the connectionId holds no token).
 * - A refresh that cannot reach the authorization server (a network error, a 5xx) keeps the
 *   tokens and is not tried again for that grant before a bounded exponential backoff (1 s
 *   doubling to 5 min, reset by a success) — other grants are not delayed. Only a refusal
 *   (`invalid_grant`) asks for a login.
 * - `oauth.audiences` is sent as Qwen/Gemini send it: `audience` (space-joined) on the
 *   authorization URL and on every token request.
 * - Configured endpoints (`oauth.authorizationUrl`, `tokenUrl`, `registrationUrl`) of the
 *   user's own config are used as written. Those of a repository's config (project, workspace
 *   scope: `endpointAuthority: 'metadata'`) are first checked against the metadata the server
 *   and its authorization server publish: one whose origin is not the one that metadata names
 *   for it is refused (OAuthEndpointError, naming the field and both hosts) before any request
 *   of the login, refresh or connection reaches it, so no code, verifier, token or client
 *   secret is sent there.
 * - A failed login always says what failed: the step, the endpoint, and the server's error
 *   code or the error's name when it gave no description.
 * - No token or client secret is ever put in an error message or a warning.
 */
import { randomBytes } from 'node:crypto';
import {
  auth,
  discoverOAuthServerInfo,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthServerInfo,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  OAuthClientInformationFullSchema,
  OAuthTokensSchema,
  type AuthorizationServerMetadata,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthEndpointField, OAuthGrant, OAuthGrantStore, OAuthTarget } from '../api/index.js';
import { OAUTH_ENDPOINT_FIELDS, redactUrl, scrubSecrets } from '../api/index.js';
import type { AuthFailure, AuthPort, ConnectionAuth } from '../pool/index.js';
import { addAudience, audienceFetch } from './audience.js';
import { RefreshBackoff } from './refresh-backoff.js';

/** A login request that the redirect did not complete in time is forgotten. */
export const LOGIN_TTL_MS = 10 * 60_000;
/** Refresh when less than this much of a token's life is left (capped at 60 s). */
const REFRESH_FRACTION = 1 / 3;
const REFRESH_MARGIN_MAX_MS = 60_000;
/** Where a connection says it would redirect to (never used: connections do not log in). */
const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';

/** The server needs an interactive login (`mcpctl login`). Says nothing secret. */
export class LoginRequiredError extends Error {
  readonly unauthorized = true;
  constructor(serverUrl: string, why = 'no OAuth login') {
    super(`${why} for ${redactUrl(serverUrl)}`);
    this.name = 'LoginRequiredError';
  }
}

/**
 * A 401 from a server that publishes no OAuth metadata (and has none configured): it wants
 * some other credential (a header), so a login would not help.
 */
export class NoOAuthMetadataError extends Error {
  constructor(serverUrl: string) {
    super(`${redactUrl(serverUrl)} publishes no OAuth metadata`);
    this.name = 'NoOAuthMetadataError';
  }
}

/** A `login` whose redirect did not match a login in progress. */
export class LoginStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoginStateError';
  }
}

/**
 * A repository's config names an OAuth endpoint that the authorization server's own metadata
 * does not: refused before anything is sent to it.
 */
export class OAuthEndpointError extends Error {
  constructor(
    readonly field: OAuthEndpointField,
    configured: string,
    published: string | undefined,
    serverUrl: string,
  ) {
    super(
      `oauth.${field} of ${redactUrl(serverUrl)} points to ${hostOf(configured)}, but the authorization server's published metadata names ${published === undefined ? 'no such endpoint' : hostOf(published)}; a project or workspace config may not send OAuth codes or secrets to another host. Remove oauth.${field} (discovery finds the endpoint), or move the server to your user settings if you trust that host`,
    );
    this.name = 'OAuthEndpointError';
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || redactUrl(url);
  } catch {
    return redactUrl(url);
  }
}

function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Why an OAuth step failed, never empty: the OAuth error code or the error's name, and its text. */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err) || 'an unknown error';
  const code = (err as { errorCode?: unknown }).errorCode;
  const head = typeof code === 'string' && code !== '' ? code : err.name || 'Error';
  if (err.message === '') return `${head} (no description given)`;
  return err instanceof OAuthEndpointError || err.message.includes(head)
    ? err.message
    : `${head}: ${err.message}`;
}

/** What a connect's error says about sign-in (the errors our provider throws). */
function failureOf(err: unknown): AuthFailure | undefined {
  if (err instanceof NoOAuthMetadataError) return 'no-oauth-metadata';
  if (err instanceof LoginRequiredError) return 'login-required';
  return undefined;
}

export interface LoginStart {
  readonly authorizationUrl: string;
  readonly state: string;
}

/** The daemon's OAuth: the pool's AuthPort (`attach`), plus sign-in and sign-out. */
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

function keyOf(target: OAuthTarget): string {
  return `${target.serverUrl}\n${target.settings.clientId ?? ''}`;
}

function scopeOf(target: OAuthTarget): string | undefined {
  return target.settings.scopes?.length ? target.settings.scopes.join(' ') : undefined;
}

function clientMetadataOf(target: OAuthTarget, redirectUrl: string): OAuthClientMetadata {
  const scope = scopeOf(target);
  return {
    client_name: 'mcpctl',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: target.settings.clientSecret ? 'client_secret_post' : 'none',
    ...(scope ? { scope } : {}),
  };
}

/**
 * Whether a registered redirect URI covers `wanted`: equal, or both on the same loopback host
 * and path, any port (RFC 8252 §7.3: an authorization server must accept any loopback port,
 * since a native client listens on whatever port is free).
 */
function sameRedirect(registered: string, wanted: string): boolean {
  if (registered === wanted) return true;
  try {
    const a = new URL(registered);
    const b = new URL(wanted);
    const loopback = (u: URL): boolean => u.hostname === '127.0.0.1' || u.hostname === 'localhost';
    return (
      loopback(a) &&
      a.protocol === b.protocol &&
      a.hostname === b.hostname &&
      a.pathname === b.pathname &&
      a.search === b.search
    );
  } catch {
    return false;
  }
}

/** Configured endpoints skip discovery (the Gemini `authorizationUrl`/`tokenUrl` fields). */
function configuredDiscovery(target: OAuthTarget): OAuthDiscoveryState | undefined {
  const { authorizationUrl, tokenUrl, registrationUrl } = target.settings;
  if (!authorizationUrl || !tokenUrl) return undefined;
  const issuer = new URL(authorizationUrl).origin;
  return {
    authorizationServerUrl: issuer,
    authorizationServerMetadata: {
      issuer,
      authorization_endpoint: authorizationUrl,
      token_endpoint: tokenUrl,
      ...(registrationUrl ? { registration_endpoint: registrationUrl } : {}),
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    },
  };
}

type Endpoints = Partial<Record<OAuthEndpointField, string>>;

function configuredEndpoints(target: OAuthTarget): Endpoints {
  const out: Endpoints = {};
  for (const field of OAUTH_ENDPOINT_FIELDS) {
    const url = target.settings[field];
    if (url) out[field] = url;
  }
  return out;
}

/** The endpoints an authorization server publishes (or the SDK's defaults where it publishes none). */
function publishedEndpoints(info: OAuthServerInfo): Endpoints {
  const m = info.authorizationServerMetadata;
  const at = (path: string): string => new URL(path, info.authorizationServerUrl).href;
  return {
    authorizationUrl: m ? m.authorization_endpoint : at('/authorize'),
    tokenUrl: m ? m.token_endpoint : at('/token'),
    registrationUrl: m ? m.registration_endpoint : at('/register'),
  };
}

/**
 * The discovery state a target's auth starts from: undefined (the SDK discovers) when nothing is
 * configured; the configured endpoints alone when the user's config names both the
 * authorization and token URL; else the discovered metadata with the configured endpoints in
 * place — for a repository's config only where their origin is the one the metadata names.
 */
async function discoveryFor(
  target: OAuthTarget,
  fetchFn: FetchLike,
): Promise<OAuthDiscoveryState | undefined> {
  const configured = configuredEndpoints(target);
  if (Object.keys(configured).length === 0) return undefined;
  if (target.endpointAuthority === 'config') {
    const fixed = configuredDiscovery(target);
    if (fixed) return fixed;
  }
  let info: OAuthServerInfo;
  try {
    info = await discoverOAuthServerInfo(target.serverUrl, { fetchFn });
  } catch (err) {
    throw new Error(
      `could not read the OAuth metadata of ${redactUrl(target.serverUrl)} (needed to use the configured oauth endpoints): ${reasonOf(err)}`,
    );
  }
  const published = publishedEndpoints(info);
  if (target.endpointAuthority === 'metadata')
    for (const field of OAUTH_ENDPOINT_FIELDS) {
      const mine = configured[field];
      if (mine !== undefined && originOf(mine) !== originOf(published[field]))
        throw new OAuthEndpointError(field, mine, published[field], target.serverUrl);
    }
  const base: AuthorizationServerMetadata = info.authorizationServerMetadata ?? {
    issuer: info.authorizationServerUrl,
    authorization_endpoint: published.authorizationUrl ?? '',
    token_endpoint: published.tokenUrl ?? '',
    registration_endpoint: published.registrationUrl,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
  };
  return {
    ...info,
    authorizationServerMetadata: {
      ...base,
      ...(configured.authorizationUrl
        ? { authorization_endpoint: configured.authorizationUrl }
        : {}),
      ...(configured.tokenUrl ? { token_endpoint: configured.tokenUrl } : {}),
      ...(configured.registrationUrl ? { registration_endpoint: configured.registrationUrl } : {}),
    },
  };
}

/** The grant of one (server URL, client id), shared by every connection to it. */
class Credential {
  grant: OAuthGrant | undefined;
  loaded = false;
  /** Where auth starts from; read through `discoveryState()`, which settles it first. */
  discovery: OAuthDiscoveryState | undefined;
  #settling: Promise<void> | undefined;
  #settled = false;
  refreshing: Promise<void> | undefined;
  readonly listeners = new Set<() => void>();
  /** Every request for this grant goes through it (it adds the configured `audience`). */
  readonly fetch: FetchLike;
  readonly backoff: RefreshBackoff;

  constructor(
    readonly target: OAuthTarget,
    private readonly store: OAuthGrantStore,
    private readonly now: () => number,
    baseFetch: FetchLike,
  ) {
    this.fetch = audienceFetch(target.settings, baseFetch);
    this.backoff = new RefreshBackoff(now);
  }

  /**
   * The discovery state, settled once (single-flight) before the first auth step uses it: no
   * request of a login, refresh or connection goes to a configured endpoint before this checked
   * it. A failed check is not kept: the next step checks again.
   */
  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    if (!this.#settled) {
      this.#settling ??= discoveryFor(this.target, this.fetch)
        .then((state) => {
          this.discovery = state;
          this.#settled = true;
        })
        .finally(() => {
          this.#settling = undefined;
        });
      await this.#settling;
    }
    return this.discovery;
  }

  resetDiscovery(): void {
    this.discovery = undefined;
    this.#settled = false;
  }

  /** The token endpoint auth uses, for messages (hidden parts redacted). */
  tokenEndpoint(): string {
    const url = this.discovery?.authorizationServerMetadata?.token_endpoint;
    return url === undefined ? 'the token endpoint' : redactUrl(url);
  }

  async load(): Promise<void> {
    if (this.loaded) return;
    this.grant = await this.store.get(this.target.serverUrl, this.target.settings.clientId);
    this.loaded = true;
  }

  tokens(): OAuthTokens | undefined {
    const parsed = OAuthTokensSchema.safeParse(this.grant?.tokens);
    return parsed.success ? parsed.data : undefined;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId, clientSecret } = this.target.settings;
    if (clientId)
      return { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) };
    const parsed = OAuthClientInformationFullSchema.safeParse(this.grant?.client);
    return parsed.success ? parsed.data : undefined;
  }

  /** True when the access token expires soon (and a refresh token could renew it). */
  expiringSoon(): boolean {
    const tokens = this.tokens();
    if (!tokens?.refresh_token || tokens.expires_in === undefined) return false;
    const lifetime = tokens.expires_in * 1000;
    const margin = Math.min(REFRESH_MARGIN_MAX_MS, lifetime * REFRESH_FRACTION);
    return this.now() >= (this.grant?.obtainedAt ?? 0) + lifetime - margin;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const clientId = this.clientInformation()?.client_id;
    if (clientId === undefined) throw new LoginRequiredError(this.target.serverUrl);
    const grant: OAuthGrant = {
      ...this.grant,
      clientId,
      tokens: { ...tokens },
      obtainedAt: this.now(),
    };
    this.grant = grant;
    await this.store.put(this.target.serverUrl, grant, this.target.settings.clientId === undefined);
  }

  async saveClient(info: OAuthClientInformationMixed): Promise<void> {
    if (this.target.settings.clientId !== undefined) return; // configured: nothing to keep
    const grant: OAuthGrant = { clientId: info.client_id, client: { ...info } };
    this.grant = grant;
    await this.store.put(this.target.serverUrl, grant, true);
  }

  async dropTokens(): Promise<void> {
    const grant = this.grant;
    if (!grant?.tokens) return;
    this.grant = { clientId: grant.clientId, ...(grant.client ? { client: grant.client } : {}) };
    await this.store.put(
      this.target.serverUrl,
      this.grant,
      this.target.settings.clientId === undefined,
    );
  }

  loginRequired(): void {
    for (const l of [...this.listeners]) l();
  }

  /** Every secret value of this grant: tokens and client secrets. */
  secrets(): string[] {
    const tokens = this.tokens();
    const client = this.clientInformation();
    return [tokens?.access_token, tokens?.refresh_token, client?.client_secret].filter(
      (v): v is string => typeof v === 'string' && v !== '',
    );
  }
}

type Mode =
  | { readonly kind: 'connection' }
  /**
   * The refresh run by `auth()` itself: tokens as stored, no refresh inside. `unreachable`:
   * the token request failed in transit (the SDK then falls through to a new authorization,
   * which must not be mistaken for a refused grant).
   */
  | { readonly kind: 'refresh'; unreachable: boolean }
  | { readonly kind: 'login'; readonly redirectUrl: string; readonly login: PendingLogin };

interface PendingLogin {
  readonly state: string;
  readonly expiresAt: number;
  readonly credential: Credential;
  verifier?: string;
  authorizationUrl?: URL;
  provider?: OAuthClientProvider;
  /** A client registered for this login's redirect, kept until the login completes. */
  client?: OAuthClientInformationMixed;
}

export function createOAuthManager(options: OAuthManagerOptions): OAuthManager {
  const now = options.now ?? Date.now;
  const baseFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const credentials = new Map<string, Credential>();
  const logins = new Map<string, PendingLogin>();

  function credentialOf(target: OAuthTarget): Credential {
    const key = keyOf(target);
    let c = credentials.get(key);
    // A changed oauth block (endpoints, secret) under the same key gets a fresh view.
    if (!c || JSON.stringify(c.target) !== JSON.stringify(target)) {
      const next = new Credential(target, options.store, now, baseFetch);
      if (c) for (const l of c.listeners) next.listeners.add(l);
      c = next;
      credentials.set(key, c);
    }
    return c;
  }

  const refreshFailed = (c: Credential): Error =>
    new Error(`OAuth token refresh for ${redactUrl(c.target.serverUrl)} failed`);

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

  /** Single-flight: every caller waits for the one refresh in progress. */
  function refresh(c: Credential): Promise<void> {
    // Backing off after an unreachable authorization server: fail at once, send nothing.
    if (!c.refreshing && c.backoff.waitLeft() > 0) return Promise.reject(refreshFailed(c));
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
        options.onWarning?.(
          `OAuth refresh for ${redactUrl(c.target.serverUrl)} failed (${mode.unreachable ? 'authorization server unreachable' : err instanceof Error ? err.name : 'error'}); next try in ${Math.round(waitMs / 1000)} s`,
        );
        throw refreshFailed(c);
      }
    })().finally(() => {
      c.refreshing = undefined;
    });
    return c.refreshing;
  }

  function providerOf(c: Credential, mode: Mode): OAuthClientProvider {
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
          await refresh(c).catch(() => undefined);
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
        if (mode.kind === 'refresh' && mode.unreachable) throw refreshFailed(c);
        // A connection that still holds a refresh token waits for the next refresh, not a login.
        if (mode.kind === 'connection' && c.tokens()?.refresh_token !== undefined)
          throw refreshFailed(c);
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

  function bearerOf(init: RequestInit | undefined): string | undefined {
    const header = new Headers(init?.headers).get('authorization');
    return header?.toLowerCase().startsWith('bearer ') ? header.slice(7) : undefined;
  }

  /** A login step's failure, saying which step and why; no token, code or secret in it. */
  function loginFailed(step: string, err: unknown, c: Credential, more: string[] = []): Error {
    return new Error(scrubSecrets(`${step}: ${reasonOf(err)}`, [...c.secrets(), ...more]));
  }

  function pruneLogins(): void {
    for (const [state, l] of logins) if (now() > l.expiresAt) logins.delete(state);
  }

  return {
    attach(target, onLoginRequired): ConnectionAuth {
      const c = credentialOf(target);
      c.listeners.add(onLoginRequired);
      const retrying: FetchLike = async (url, init) => {
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
      return {
        provider: providerOf(c, { kind: 'connection' }),
        fetch: retrying,
        scrub: (text) => scrubSecrets(text, c.secrets()),
        failureOf,
        detach: () => {
          credentialOf(target).listeners.delete(onLoginRequired);
          c.listeners.delete(onLoginRequired);
        },
      };
    },

    async beginLogin(target, redirectUri) {
      pruneLogins();
      const c = credentialOf(target);
      const state = randomBytes(24).toString('base64url');
      const login: PendingLogin = { state, expiresAt: now() + LOGIN_TTL_MS, credential: c };
      const provider = providerOf(c, { kind: 'login', redirectUrl: redirectUri, login });
      login.provider = provider;
      let result;
      try {
        result = await auth(provider, {
          serverUrl: target.serverUrl,
          scope: scopeOf(target),
          fetchFn: c.fetch,
        });
      } catch (err) {
        throw loginFailed(`starting the sign-in to ${redactUrl(target.serverUrl)} failed`, err, c);
      }
      if (result !== 'REDIRECT' || login.authorizationUrl === undefined)
        throw new Error(
          `the authorization server of ${redactUrl(target.serverUrl)} did not ask for a login`,
        );
      logins.set(state, login);
      return { authorizationUrl: login.authorizationUrl.href, state };
    },

    async finishLogin(state, code) {
      pruneLogins();
      const login = logins.get(state);
      if (!login?.provider)
        throw new LoginStateError(
          'no login in progress for this redirect (its state is unknown or expired); run mcpctl login again',
        );
      logins.delete(state); // once: a replayed redirect finds nothing
      const c = login.credential;
      let result;
      try {
        result = await auth(login.provider, {
          serverUrl: c.target.serverUrl,
          authorizationCode: code,
          scope: scopeOf(c.target),
          fetchFn: c.fetch,
        });
      } catch (err) {
        throw loginFailed(`exchanging the sign-in code at ${c.tokenEndpoint()} failed`, err, c, [
          code,
          login.verifier ?? '',
        ]);
      }
      if (result !== 'AUTHORIZED')
        throw new LoginRequiredError(c.target.serverUrl, 'the login was not accepted');
      return c.target;
    },

    async logout(target) {
      const c = credentialOf(target);
      const removed = await options.store.remove(target.serverUrl, target.settings.clientId);
      c.grant = undefined;
      c.loaded = true;
      c.loginRequired();
      return removed;
    },

    async hasLogin(target) {
      const c = credentialOf(target);
      await c.load();
      return c.tokens() !== undefined;
    },
  };
}
