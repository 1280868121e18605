/**
 * Where a server's OAuth requests go: the authorization server's endpoints, from its published
 * metadata (RFC 9728, RFC 8414) and the config's `oauth` block.
 *
 * Guarantees:
 * - Nothing configured: undefined, and the SDK discovers everything itself.
 * - The user's own config (`endpointAuthority: 'config'`) naming both the authorization and
 *   token URL is used as written, without asking anyone; naming only some, the rest is
 *   discovered and the configured ones win.
 * - A repository's config (`endpointAuthority: 'metadata'`): the metadata is read first, and a
 *   configured endpoint whose origin is not the one the metadata names for it is refused
 *   (OAuthEndpointError) — before any request of a login, refresh or connection reaches it.
 * - Metadata that cannot be read while configured endpoints need it is an error that says so.
 */
import {
  discoverOAuthServerInfo,
  type OAuthDiscoveryState,
  type OAuthServerInfo,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthEndpointField, OAuthTarget } from '../api/index.js';
import { OAUTH_ENDPOINT_FIELDS, redactUrl } from '../api/index.js';
import { OAuthEndpointError, reasonOf } from './errors.js';

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

function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * The discovery state a target's auth starts from: undefined (the SDK discovers) when nothing is
 * configured; the configured endpoints alone when the user's config names both the
 * authorization and token URL; else the discovered metadata with the configured endpoints in
 * place — for a repository's config only where their origin is the one the metadata names.
 */
export async function discoveryFor(
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
