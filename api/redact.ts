/**
 * Secrets stay hidden: env and header values, and OAuth secrets, are replaced in every output
 * unless the caller explicitly asks for them (`--show-secrets`).
 */
import type { McpServerConfig } from './schema.js';

export const REDACTED = '<redacted>';

const SECRET_OAUTH_KEYS = /secret|token|password|key/i;

function redactValues(
  record: Record<string, string> | undefined,
): Record<string, string> | undefined {
  if (record === undefined) return undefined;
  return Object.fromEntries(Object.keys(record).map((k) => [k, REDACTED]));
}

export function redact(spec: McpServerConfig): McpServerConfig {
  const out: McpServerConfig = { ...spec };
  if (spec.env) out.env = redactValues(spec.env);
  if (spec.headers) out.headers = redactValues(spec.headers);
  if (spec.oauth) {
    out.oauth = Object.fromEntries(
      Object.entries(spec.oauth).map(([k, v]) => [k, SECRET_OAUTH_KEYS.test(k) ? REDACTED : v]),
    );
  }
  return out;
}
