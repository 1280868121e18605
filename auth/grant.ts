/**
 * What the daemon keeps after a login, and where it keeps it (DESIGN §5 "One login per server
 * per machine").
 *
 * Guarantees:
 * - A grant is keyed by the server's URL and the client id: one per (server, client) for
 *   every session of the daemon.
 * - `clientId` undefined in a lookup means the client registered dynamically for that URL,
 *   whatever its id; a configured client id is looked up as written.
 */

/**
 * What the daemon keeps for one (server URL, client id): the client it registered dynamically
 * (absent for a configured client id) and the last tokens, as the SDK gave them. Opaque JSON
 * objects here; credential.ts reads them with the SDK's schemas.
 */
export interface OAuthGrant {
  readonly clientId: string;
  /** Dynamic client registration's answer (holds a client secret, if one was issued). */
  readonly client?: Readonly<Record<string, unknown>>;
  readonly tokens?: Readonly<Record<string, unknown>>;
  /** ms since the epoch when `tokens` were obtained (their `expires_in` counts from here). */
  readonly obtainedAt?: number;
}

/**
 * Where grants live (the daemon's `~/.mcpctl/oauth-tokens.json`). `clientId` undefined means
 * "the client registered dynamically for this server", whatever its id.
 */
export interface OAuthGrantStore {
  get(serverUrl: string, clientId: string | undefined): Promise<OAuthGrant | undefined>;
  /** Replaces the grant of (serverUrl, grant.clientId); `dynamic` marks it the registered one. */
  put(serverUrl: string, grant: OAuthGrant, dynamic: boolean): Promise<void>;
  /** Forgets the tokens (and a dynamic registration) of (serverUrl, clientId); true if any. */
  remove(serverUrl: string, clientId: string | undefined): Promise<boolean>;
}
