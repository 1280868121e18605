/**
 * A session's environment (DESIGN §5 "The agent's environment"): what `${VAR}` in its configs
 * expands in, what a bare `command` is looked up on (its PATH), and what its stdio servers
 * start in, their own `env` on top. One value carries all three, so they cannot disagree.
 *
 * - `agent`: the variables of the agent whose `mcpctl serve` opened the session. A server that
 *   starts in them must never serve a session with other variables, so their digest is part of
 *   a stdio server's connectionId (identity.ts); the values themselves never show.
 * - `daemon`: the daemon's own process environment (its default session when started by hand,
 *   sessions the CLI opens, `--no-daemon`). It is the baseline every such session shares, so
 *   it adds nothing to a connectionId.
 *
 * Guarantees: the digest is sha256 hex over the sorted `NAME`, `value` pairs (NUL-separated),
 * so equal variables give equal digests whatever their order; an agent environment is a frozen
 * copy (with a null prototype), so what a server starts in is what the digest describes.
 */
import { createHash } from 'node:crypto';
import type { SessionEnv } from './env-expansion.js';

export type SessionEnvironment =
  | {
      readonly kind: 'agent';
      readonly vars: Readonly<Record<string, string>>;
      readonly digest: string;
    }
  | { readonly kind: 'daemon'; readonly vars: SessionEnv };

/** sha256 hex over the set variables of `vars`, sorted by name. */
export function environmentDigest(vars: SessionEnv): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(vars).sort()) {
    const value = vars[name];
    if (typeof value === 'string') hash.update(`${name}\0${value}\0`);
  }
  return hash.digest('hex');
}

/** The environment an agent sent (`mcpctl serve`'s own): copied, frozen, digested once. */
export function agentEnvironment(vars: SessionEnv): SessionEnvironment {
  const copy: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(vars))
    if (typeof value === 'string') copy[name] = value;
  return { kind: 'agent', vars: Object.freeze(copy), digest: environmentDigest(copy) };
}

/** The daemon's own environment (pass `process.env`): inherited by its servers as it is. */
export function daemonEnvironment(vars: SessionEnv): SessionEnvironment {
  return { kind: 'daemon', vars };
}
