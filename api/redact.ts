/**
 * Secrets stay hidden: env and header values, and OAuth secrets, are replaced in every output
 * unless the caller explicitly asks for them (`--show-secrets`).
 *
 * Guarantees:
 * - `isSecretField` names the server fields whose values may be or carry a secret (env, headers,
 *   oauth, and the URLs, whose query or userinfo may hold a token); validation messages never
 *   quote their values, and `describeHidden` says only what type was found.
 */
import type { McpServerConfig } from './schema.js';

export const REDACTED = '<redacted>';

const SECRET_FIELDS: ReadonlySet<string> = new Set(['env', 'headers', 'oauth', 'url', 'httpUrl']);

/** True for a server field whose value may be, or carry, a secret. */
export function isSecretField(field: string | number | undefined): boolean {
  return typeof field === 'string' && SECRET_FIELDS.has(field);
}

function typeWord(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
    case 'bigint':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'undefined':
      return 'nothing';
    case 'object':
      return 'an object';
    default:
      return `a ${typeof value}`;
  }
}

/** What a validation message says instead of a value that may be a secret: its type only. */
export function describeHidden(value: unknown): string {
  return value === undefined || value === null
    ? typeWord(value)
    : `${typeWord(value)} (not shown: it may be a secret)`;
}

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
