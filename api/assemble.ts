/**
 * Merging the sources of one session into its desired server map (DESIGN §4 rule 1).
 *
 * Guarantees: replace, never merge — a higher scope's entry replaces the whole lower entry;
 * workspace settings count only in a trusted folder; each server keeps its scope and file.
 */
import type { McpServerConfig } from './schema.js';
import { SCOPE_PRECEDENCE, type Scope } from './scope.js';

export interface SourceServers {
  readonly scope: Scope;
  /** The file the servers were read from (or a label such as `session`). */
  readonly file: string;
  readonly servers?: Readonly<Record<string, McpServerConfig>>;
}

export interface DesiredServer {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly scope: Scope;
  readonly source: string;
}

export type DesiredServers = Readonly<Record<string, DesiredServer>>;

export function assembleMcpServers(
  sources: readonly SourceServers[],
  options: { trusted: boolean },
): DesiredServers {
  const rank = (s: Scope) => SCOPE_PRECEDENCE.indexOf(s);
  // Stable sort: sources of the same scope keep the order given.
  const ordered = [...sources].sort((a, b) => rank(a.scope) - rank(b.scope));
  const out = Object.create(null) as Record<string, DesiredServer>;
  for (const source of ordered) {
    if (source.scope === 'workspace' && !options.trusted) continue;
    for (const [name, config] of Object.entries(source.servers ?? {})) {
      out[name] = { name, config, scope: source.scope, source: source.file };
    }
  }
  return out;
}

/** The plain name → config map of an assembled set, for equality checks. */
export function configsOf(servers: DesiredServers): Record<string, McpServerConfig> {
  const out = Object.create(null) as Record<string, McpServerConfig>;
  for (const [name, s] of Object.entries(servers)) out[name] = s.config;
  return out;
}
