/**
 * Identities derived from a server's config.
 *
 * - connectionId `${name}::${16 hex}`: equal ids mean the live connection may be reused. Only
 *   the fields that change what process or endpoint we talk to count (DESIGN §1); tool filters,
 *   trust and description do not, so editing them never reconnects.
 * - approval hash: 64 hex over the whole canonical config minus `scope`, `description`,
 *   `extensionName` (top level only). Approvals are bound to it.
 */
import { createHash } from 'node:crypto';
import stableStringify from 'json-stable-stringify';
import type { McpServerConfig } from './schema.js';
import { transportOf } from './transport.js';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function canonical(value: unknown): string {
  const text = stableStringify(value);
  if (text === undefined) throw new Error('value cannot be serialised canonically');
  return text;
}

/** The connection-relevant fields, with absent ≡ null / [] / {} so that omission is stable. */
export function connectionFieldsOf(config: McpServerConfig): Record<string, unknown> {
  let transport: string;
  try {
    transport = transportOf(config);
  } catch {
    transport = 'none';
  }
  return {
    transport,
    command: config.command ?? null,
    args: config.args ?? [],
    cwd: config.cwd ?? null,
    env: config.env ?? {},
    url: config.url ?? null,
    httpUrl: config.httpUrl ?? null,
    headers: config.headers ?? {},
    timeout: config.timeout ?? null,
    oauth: config.oauth ?? null,
    authProviderType: config.authProviderType ?? null,
  };
}

export function connectionIdOf(name: string, config: McpServerConfig): string {
  return `${name}::${sha256(canonical(connectionFieldsOf(config))).slice(0, 16)}`;
}

/** Splits on the last `::`, so server names that contain `::` survive. */
export function parseConnectionId(id: string): { name: string; fingerprint: string } {
  const at = id.lastIndexOf('::');
  if (at < 0) throw new Error(`not a connectionId (no "::"): ${id}`);
  return { name: id.slice(0, at), fingerprint: id.slice(at + 2) };
}

const NOT_IN_APPROVAL = new Set(['scope', 'description', 'extensionName']);

export function approvalHashOf(config: McpServerConfig): string {
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if (!NOT_IN_APPROVAL.has(k)) kept[k] = v;
  return sha256(canonical(kept));
}

/** The names of connection fields that differ between two configs (for `diff` and events). */
export function changedConnectionFields(a: McpServerConfig, b: McpServerConfig): string[] {
  const fa = connectionFieldsOf(a);
  const fb = connectionFieldsOf(b);
  return Object.keys(fa).filter((k) => canonical(fa[k]) !== canonical(fb[k]));
}
