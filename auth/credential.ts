/**
 * The grant of one (server URL, client id) as the daemon holds it: loaded from the grant
 * store once, shared by every connection and session, written back on every change.
 *
 * Guarantees:
 * - One Credential per (server URL, client id) in a daemon (Credentials). A changed `oauth`
 *   block under the same key gets a fresh one (endpoints, secret), and keeps the listeners of
 *   the connections that use it.
 * - Its discovery state is settled once, single-flight, before any auth step uses it (see
 *   discovery.ts): no request goes to a configured endpoint before it was checked. A failed
 *   check is not kept: the next step checks again.
 * - Every request for the grant goes through its `fetch`, which adds the configured
 *   `audience` to token requests.
 * - Its refresh backoff is its own: a grant whose authorization server is down never delays
 *   another.
 * - A token "expires soon" when less than a third of its life is left, at most 60 s.
 * - A configured client id is never stored as a registration; a dynamic one is, and a new
 *   one replaces it.
 */
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthClientInformationFullSchema,
  OAuthTokensSchema,
  type OAuthClientInformationMixed,
  type OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthTarget } from '../api/index.js';
import { redactUrl } from '../api/index.js';
import { audienceFetch } from './audience.js';
import { discoveryFor } from './discovery.js';
import { LoginRequiredError } from './errors.js';
import type { OAuthGrant, OAuthGrantStore } from './grant.js';
import { RefreshBackoff } from './refresh-backoff.js';

/** Refresh when less than this much of a token's life is left (capped at 60 s). */
const REFRESH_FRACTION = 1 / 3;
const REFRESH_MARGIN_MAX_MS = 60_000;

/** The grant of one (server URL, client id), shared by every connection to it. */
export class Credential {
  grant: OAuthGrant | undefined;
  loaded = false;
  /** Where auth starts from; read through `discoveryState()`, which settles it first. */
  discovery: OAuthDiscoveryState | undefined;
  #settling: Promise<void> | undefined;
  #settled = false;
  /** The refresh in flight (refresh.ts): every caller waits for this one. */
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

/** The Credentials of one daemon, by (server URL, client id). */
export class Credentials {
  readonly #byKey = new Map<string, Credential>();

  constructor(
    private readonly store: OAuthGrantStore,
    private readonly now: () => number,
    private readonly baseFetch: FetchLike,
  ) {}

  /** The Credential `target` uses: the same one for an equal target. */
  of(target: OAuthTarget): Credential {
    const key = `${target.serverUrl}\n${target.settings.clientId ?? ''}`;
    let c = this.#byKey.get(key);
    // A changed oauth block (endpoints, secret) under the same key gets a fresh view.
    if (!c || JSON.stringify(c.target) !== JSON.stringify(target)) {
      const next = new Credential(target, this.store, this.now, this.baseFetch);
      if (c) for (const l of c.listeners) next.listeners.add(l);
      c = next;
      this.#byKey.set(key, c);
    }
    return c;
  }
}
