/**
 * OAuth for remote servers: what a config's `oauth` block says (DESIGN §5 "One login per
 * server per machine"); the sign-in itself is auth/'s.
 *
 * Guarantees:
 * - `oauthSettingsOf` reads the Qwen/Gemini `oauth` block leniently (a field of the wrong type
 *   counts as absent) and says whether OAuth applies at all: only to remote servers, not when
 *   `oauth.enabled` is false, not for an `authProviderType` other than `dynamic_discovery`, and
 *   not when the config already sends its own `Authorization` header.
 * - A target names the server's URL (where the daemon's grant is kept, auth/) and never a
 *   token: tokens are not part of the connectionId (a refresh changes nothing that runs).
 * - Endpoints a repository's file configures (project and workspace scope) are the
 *   repository's word, not the user's: the target says so (`endpointAuthority: 'metadata'`),
 *   and auth/ then uses them only where the authorization server's own metadata agrees.
 */
import type { McpServerConfig } from './server-config.js';
import { isGatedScope, type Scope } from './scope.js';
import { urlOf } from './transport.js';

/** The `oauth` fields that name an endpoint mcpctl sends requests to. */
export const OAUTH_ENDPOINT_FIELDS = ['authorizationUrl', 'tokenUrl', 'registrationUrl'] as const;
export type OAuthEndpointField = (typeof OAUTH_ENDPOINT_FIELDS)[number];

/** The `oauth` block, typed. Every field is optional: discovery fills in what is missing. */
export interface OAuthSettings {
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly authorizationUrl?: string;
  readonly tokenUrl?: string;
  readonly registrationUrl?: string;
  readonly scopes?: readonly string[];
  readonly audiences?: readonly string[];
  readonly redirectUri?: string;
}

/**
 * Whose word a target's configured endpoints are. `config`: the user's own file (user, system,
 * `--mcp-config`, the session's): used as written. `metadata`: a repository's file (project,
 * workspace): an endpoint is used only when the authorization server's own published metadata
 * names the same origin for it, since the user approved the server, not where its codes go.
 */
export type EndpointAuthority = 'config' | 'metadata';

/** OAuth for this server: the server URL (the store's key) and its settings, or undefined. */
export interface OAuthTarget {
  readonly serverUrl: string;
  readonly settings: OAuthSettings;
  readonly endpointAuthority: EndpointAuthority;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const strs = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? v : undefined;

/** `scope`: where the config came from (it decides `endpointAuthority`). */
export function oauthTargetOf(config: McpServerConfig, scope: Scope): OAuthTarget | undefined {
  const serverUrl = urlOf(config);
  if (serverUrl === undefined || config.command !== undefined) return undefined;
  const block: Record<string, unknown> = config.oauth ?? {};
  if (block.enabled === false) return undefined;
  const provider = config.authProviderType ?? 'dynamic_discovery';
  if (provider !== 'dynamic_discovery') return undefined;
  if (Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization'))
    return undefined;
  const settings: OAuthSettings = {
    clientId: str(block.clientId),
    clientSecret: str(block.clientSecret),
    authorizationUrl: str(block.authorizationUrl),
    tokenUrl: str(block.tokenUrl),
    registrationUrl: str(block.registrationUrl),
    scopes: strs(block.scopes),
    audiences: strs(block.audiences),
    redirectUri: str(block.redirectUri),
  };
  return { serverUrl, settings, endpointAuthority: isGatedScope(scope) ? 'metadata' : 'config' };
}

/** Values of a config's `oauth` block that must never be shown (the client secret). */
export function oauthSecretsOf(config: McpServerConfig): string[] {
  const secret = config.oauth?.clientSecret;
  return typeof secret === 'string' && secret !== '' ? [secret] : [];
}
