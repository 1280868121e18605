/**
 * Identities derived from a server's config.
 *
 * - connectionId `${name}::${16 hex}`: equal ids mean the live connection may be reused. Only
 *   the fields that change what process or endpoint we talk to count (DESIGN §1); tool filters,
 *   trust and description do not, so editing them never reconnects.
 * - A stdio server's effective working directory (its `cwd` resolved against the session's
 *   workspace, else the workspace) is one of those fields: a relative path in its args means
 *   a different folder in each workspace, so two workspaces share a process only when it runs
 *   in the same place. Remote servers have no working directory and may be shared.
 * - So is the environment a stdio server starts in, when it is an agent's (session-env.ts): by
 *   digest, so two agents share a process only when it would see the same variables, and no
 *   value shows in the id. The daemon's own environment is the baseline and adds nothing.
 * - approval hash: 64 hex over the whole canonical config minus `scope`, `description`,
 *   `extensionName` (top level only). Approvals are bound to it.
 */
import path from 'node:path';
import { approvalHashOver, type ApprovalHash } from './approval-hash.js';
import { changedFieldsOf, fingerprintIdOf } from './digest.js';
import type { McpServerConfig } from './server-config.js';
import type { SessionEnvironment } from './session-env.js';
import { transportOf, urlOf } from './transport.js';

/**
 * Where a stdio server runs: its `cwd` resolved against `workspace` (the session's workspace
 * root, absolute), else `workspace` itself. Undefined for a remote server (a URL): nothing of
 * it runs here.
 */
export function workingDirectoryOf(config: McpServerConfig, workspace: string): string | undefined {
  if (urlOf(config) !== undefined) return undefined;
  return path.resolve(workspace, config.cwd ?? '.');
}

/**
 * The connection-relevant fields, with absent ≡ null / [] / {} so that omission is stable.
 * `workspace` is the session's workspace root: it decides a stdio server's working directory.
 * `environment` is the session's (absent ≡ the daemon's own): a stdio server starts in it.
 */
export function connectionFieldsOf(
  config: McpServerConfig,
  workspace: string,
  environment?: SessionEnvironment,
): Record<string, unknown> {
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
    cwd: workingDirectoryOf(config, workspace) ?? null,
    env: config.env ?? {},
    url: config.url ?? null,
    httpUrl: config.httpUrl ?? null,
    headers: config.headers ?? {},
    timeout: config.timeout ?? null,
    oauth: config.oauth ?? null,
    authProviderType: config.authProviderType ?? null,
    // Only when there is one, so ids of servers in the daemon's own environment stay as they were.
    ...(transport === 'stdio' && environment?.kind === 'agent'
      ? { environment: environment.digest }
      : {}),
  };
}

/** `workspace`, `environment`: the session's (see connectionFieldsOf). */
export function connectionIdOf(
  name: string,
  config: McpServerConfig,
  workspace: string,
  environment?: SessionEnvironment,
): string {
  return fingerprintIdOf(name, connectionFieldsOf(config, workspace, environment));
}

/** Splits on the last `::`, so server names that contain `::` survive. */
export function parseConnectionId(id: string): { name: string; fingerprint: string } {
  const at = id.lastIndexOf('::');
  if (at < 0) throw new Error(`not a connectionId (no "::"): ${id}`);
  return { name: id.slice(0, at), fingerprint: id.slice(at + 2) };
}

const NOT_IN_APPROVAL = new Set(['scope', 'description', 'extensionName']);

export function approvalHashOf(config: McpServerConfig): ApprovalHash {
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) if (!NOT_IN_APPROVAL.has(k)) kept[k] = v;
  return approvalHashOver(kept);
}

/**
 * The names of connection fields that differ between two configs of one session (for `diff`
 * and events).
 */
export function changedConnectionFields(
  a: McpServerConfig,
  b: McpServerConfig,
  workspace: string,
): string[] {
  return changedFieldsOf(connectionFieldsOf(a, workspace), connectionFieldsOf(b, workspace));
}
