/**
 * Secrets stay hidden: env and header values, and OAuth secrets, are replaced in every output
 * unless the caller explicitly asks for them (`--show-secrets`).
 *
 * A value that is a reference to the agent's environment (`${GITHUB_TOKEN}`, `Bearer ${TOKEN}`)
 * is shown as the file wrote it: the text holds no secret, and seeing which variable a server
 * reads is what a user needs to debug it. Anything literal beyond an auth scheme word is
 * redacted whole.
 */
import { hasReference, literalPartOf, type ExpansionSyntax } from './env-expansion.js';
import type { McpServerConfig } from './schema.js';

export const REDACTED = '<redacted>';

const SECRET_OAUTH_KEYS = /secret|token|password|key/i;
/** What may stand literally beside a reference without being a secret itself. */
const SCHEME_WORD = /^\s*(bearer|basic|token)?\s*$/i;

function shownAsWritten(value: string, syntax: ExpansionSyntax): boolean {
  return hasReference(value, syntax) && SCHEME_WORD.test(literalPartOf(value, syntax));
}

function redactValues(
  record: Record<string, string> | undefined,
  syntax: ExpansionSyntax,
): Record<string, string> | undefined {
  if (record === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(record).map(([k, v]) => [k, shownAsWritten(v, syntax) ? v : REDACTED]),
  );
}

/** `syntax`: how the server's file writes variable references (see env-expansion.ts). */
export function redact(spec: McpServerConfig, syntax: ExpansionSyntax = 'none'): McpServerConfig {
  const out: McpServerConfig = { ...spec };
  if (spec.env) out.env = redactValues(spec.env, syntax);
  if (spec.headers) out.headers = redactValues(spec.headers, syntax);
  if (spec.oauth) {
    out.oauth = Object.fromEntries(
      Object.entries(spec.oauth).map(([k, v]) => [k, SECRET_OAUTH_KEYS.test(k) ? REDACTED : v]),
    );
  }
  return out;
}

/**
 * Replaces every occurrence of each secret in `text` with `<redacted>`. Values shorter than 4
 * characters are left alone: they cannot be told from ordinary words, and no real token is
 * that short.
 */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  const ordered = [...new Set(secrets)]
    .filter((s) => s.length >= 4)
    .sort((a, b) => b.length - a.length);
  for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}
