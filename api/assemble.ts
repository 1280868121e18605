/**
 * Merging the sources of one session into its desired server map (DESIGN §4 rule 1).
 *
 * Guarantees: replace, never merge — a higher scope's entry replaces the whole lower entry;
 * workspace settings count only in a trusted folder; each server keeps its scope and file.
 */
import type { McpServerConfig } from './server-config.js';
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
    const servers = source.servers ?? {};
    // Keys then lookups: Object.entries on a map of thousands (dictionary mode) is much slower.
    for (const name of Object.keys(servers)) {
      out[name] = desiredServer(name, servers[name], source);
    }
  }
  return out;
}

/**
 * The same DesiredServer object for the same config object, name, scope and file: configs of
 * unchanged entries are the same objects from save to save (informers/structural-sharing.ts),
 * so a reload allocates only for what changed. Weak: forgotten with the config.
 */
const desiredCache = new WeakMap<McpServerConfig, DesiredServer>();

function desiredServer(
  name: string,
  config: McpServerConfig,
  source: SourceServers,
): DesiredServer {
  const hit = desiredCache.get(config);
  if (
    hit !== undefined &&
    hit.name === name &&
    hit.scope === source.scope &&
    hit.source === source.file
  )
    return hit;
  const made = { name, config, scope: source.scope, source: source.file };
  desiredCache.set(config, made);
  return made;
}

/** The plain name → config map of an assembled set, for equality checks. */
export function configsOf(servers: DesiredServers): Record<string, McpServerConfig> {
  const out = Object.create(null) as Record<string, McpServerConfig>;
  for (const name of Object.keys(servers)) out[name] = servers[name].config;
  return out;
}
