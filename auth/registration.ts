/**
 * What mcpctl says about itself to an authorization server when it registers a client
 * dynamically (RFC 7591), and whether an earlier registration still serves a login.
 *
 * Guarantees:
 * - The client is `mcpctl`, for the authorization code and refresh token grants, with the
 *   login's redirect URI; it authenticates with `client_secret_post` only when a client
 *   secret is configured, else as a public client (`none`: PKCE protects the code).
 * - The configured `oauth.scopes` are asked for space-joined, or no scope at all.
 * - A registered redirect URI covers a login's on the same loopback host and path on any port
 *   (RFC 8252 §7.3); anything else must be equal, or the login registers again.
 */
import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthTarget } from '../api/index.js';

/** The `scope` asked for, or undefined when none is configured. */
export function scopeOf(target: OAuthTarget): string | undefined {
  return target.settings.scopes?.length ? target.settings.scopes.join(' ') : undefined;
}

export function clientMetadataOf(target: OAuthTarget, redirectUrl: string): OAuthClientMetadata {
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
export function sameRedirect(registered: string, wanted: string): boolean {
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
