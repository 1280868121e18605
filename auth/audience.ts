/**
 * The Qwen/Gemini `oauth.audiences` setting, sent as those agents send it: one `audience`
 * parameter holding the audiences joined by spaces, on the authorization URL and on every
 * token request (code exchange and refresh).
 *
 * Guarantees:
 * - With no audiences configured, nothing is added anywhere (requests are the SDK's own).
 * - Only form-encoded token requests (a body with `grant_type`) get the parameter; discovery,
 *   registration and MCP requests pass untouched. The caller's body is not mutated.
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthSettings } from '../api/index.js';

/** The `audience` value, or undefined when none is configured. */
export function audienceOf(settings: OAuthSettings): string | undefined {
  return settings.audiences?.length ? settings.audiences.join(' ') : undefined;
}

/** Adds `audience` to an authorization URL (in place), when one is configured. */
export function addAudience(url: URL, settings: OAuthSettings): void {
  const audience = audienceOf(settings);
  if (audience !== undefined) url.searchParams.set('audience', audience);
}

/** `base` with `audience` added to every token request's form, when one is configured. */
export function audienceFetch(settings: OAuthSettings, base: FetchLike): FetchLike {
  const audience = audienceOf(settings);
  if (audience === undefined) return base;
  return (url, init) => {
    const body = init?.body;
    if (!(body instanceof URLSearchParams) || !body.has('grant_type')) return base(url, init);
    const form = new URLSearchParams(body);
    form.set('audience', audience);
    return base(url, { ...init, body: form });
  };
}
