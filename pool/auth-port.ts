/**
 * The pool's port to OAuth: what a connection to a remote server needs of the daemon's
 * sign-ins, and nothing more. auth/ implements it (OAuthManager); whoever builds the daemon
 * hands it to the pool (PoolOptions.auth), so pool/ holds no grant, token, store or login.
 *
 * Guarantees an implementation gives:
 * - `authFor` never starts a login and sends nothing by itself; the connection's requests go
 *   through `fetch` and `provider`, which use (and refresh) the grant shared by every
 *   connection to the same server.
 * - `onLoginRequired` runs when the grant is gone (logout, a refused refresh): the connection
 *   then waits for a login instead of retrying.
 * - `scrub` hides the grant's tokens and client secret in any text (a server may echo them).
 * - `failureOf` says whether a failed connect was for want of a login, or a 401 from a server
 *   that publishes no OAuth metadata (a login would not help); anything else is a plain failure.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthTarget } from '../api/index.js';

/** What a connect failure means for sign-in (see ConnectionAuth.failureOf). */
export type AuthFailure = 'login-required' | 'no-oauth-metadata';

export interface AuthPort {
  /** The auth of one connection to `target`; `onLoginRequired` fires when its grant is gone. */
  authFor(target: OAuthTarget, onLoginRequired: () => void): ConnectionAuth;
}

/** One connection's view of its server's grant; `detach` when the connection ends. */
export interface ConnectionAuth {
  readonly provider: OAuthClientProvider;
  /** A fetch that retries a request once after a 401 on a token we sent, with a fresh one. */
  readonly fetch: FetchLike;
  /** `text` with this grant's tokens and client secret hidden (a server may echo them). */
  scrub(text: string): string;
  /** What the error of a failed connect says about sign-in; undefined: nothing. */
  failureOf(err: unknown): AuthFailure | undefined;
  detach(): void;
}
