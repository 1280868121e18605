/**
 * The errors of OAuth, and the words a failed step is told in.
 *
 * Guarantees:
 * - No message holds a token, a code, a verifier or a client secret: URLs are redacted, and an
 *   endpoint is named by its host.
 * - `reasonOf` is never empty: the OAuth error code or the error's name, and its text (or
 *   "(no description given)").
 * - `authFailureOf` maps our provider's errors to the pool's AuthFailure; any other error
 *   means nothing for sign-in.
 */
import type { OAuthEndpointField } from '../api/index.js';
import { redactUrl } from '../api/index.js';
import type { AuthFailure } from '../pool/index.js';

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

/**
 * A refresh that did not renew the tokens but proves nothing against the grant (unreachable,
 * backing off): the tokens are kept. A plain Error, so its name adds nothing to messages.
 */
export function refreshFailed(serverUrl: string): Error {
  return new Error(`OAuth token refresh for ${redactUrl(serverUrl)} failed`);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || redactUrl(url);
  } catch {
    return redactUrl(url);
  }
}

/** Why an OAuth step failed, never empty: the OAuth error code or the error's name, and its text. */
export function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err) || 'an unknown error';
  const code = (err as { errorCode?: unknown }).errorCode;
  const head = typeof code === 'string' && code !== '' ? code : err.name || 'Error';
  if (err.message === '') return `${head} (no description given)`;
  return err instanceof OAuthEndpointError || err.message.includes(head)
    ? err.message
    : `${head}: ${err.message}`;
}

/** What a connect's error says about sign-in (the errors our provider throws). */
export function authFailureOf(err: unknown): AuthFailure | undefined {
  if (err instanceof NoOAuthMetadataError) return 'no-oauth-metadata';
  if (err instanceof LoginRequiredError) return 'login-required';
  return undefined;
}
