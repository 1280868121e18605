/**
 * Merging the sources of one session into its desired server map (DESIGN §4 rule 1), for both
 * kinds: MCP servers (every scope) and language servers (`.lsp.json` < `--lsp-config`).
 *
 * Guarantees: replace, never merge — a higher scope's entry replaces the whole lower entry;
 * workspace settings count only in a trusted folder; each server keeps its scope and file, and
 * the expansion syntax of its file when that is not its scope's (mcpctl's server file: scope
 * `user`, written as a `.mcp.json`).
 */
import type { ExpansionSyntax } from './env-expansion.js';
import type {
  DesiredLanguageServer,
  DesiredLanguageServers,
  LanguageServerConfig,
  LanguageServerScope,
} from './lsp-config.js';
import type { McpServerConfig } from './server-config.js';
import { SCOPE_PRECEDENCE, type Scope } from './scope.js';

export interface SourceServers<C = McpServerConfig, S extends Scope = Scope> {
  readonly scope: S;
  /** The file the servers were read from (or a label such as `session`). */
  readonly file: string;
  readonly servers?: Readonly<Record<string, C>>;
  /** How the file writes `${VAR}`s, when not as its scope's files do (syntaxOfServer). */
  readonly syntax?: ExpansionSyntax;
}

/** The language servers of one file: `.lsp.json` (project) or `--lsp-config` (cli). */
export type LanguageServerSource = SourceServers<LanguageServerConfig, LanguageServerScope>;

export interface DesiredServer {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly scope: Scope;
  readonly source: string;
  /** Its file's expansion syntax when not its scope's (see `syntaxOfServer`). */
  readonly syntax?: ExpansionSyntax;
}

export type DesiredServers = Readonly<Record<string, DesiredServer>>;

/**
 * The layers in precedence order, the kept ones' servers by name, the highest scope winning.
 * `made` gives each (name, config, layer) its desired object.
 */
function mergeLayers<C, S extends Scope, D>(
  sources: readonly SourceServers<C, S>[],
  keep: (source: SourceServers<C, S>) => boolean,
  made: (name: string, config: C, source: SourceServers<C, S>) => D,
): Record<string, D> {
  const rank = (s: Scope) => SCOPE_PRECEDENCE.indexOf(s);
  // Stable sort: sources of the same scope keep the order given.
  const ordered = [...sources].sort((a, b) => rank(a.scope) - rank(b.scope));
  const out = Object.create(null) as Record<string, D>;
  for (const source of ordered) {
    if (!keep(source)) continue;
    const servers = source.servers ?? {};
    // Keys then lookups: Object.entries on a map of thousands (dictionary mode) is much slower.
    for (const name of Object.keys(servers)) out[name] = made(name, servers[name], source);
  }
  return out;
}

export function assembleMcpServers(
  sources: readonly SourceServers[],
  options: { trusted: boolean },
): DesiredServers {
  return mergeLayers(
    sources,
    (source) => source.scope !== 'workspace' || options.trusted,
    desiredServer,
  );
}

/** The language servers of a session: `--lsp-config` replaces `.lsp.json` per name. */
export function assembleLanguageServers(
  sources: readonly LanguageServerSource[],
): DesiredLanguageServers {
  return mergeLayers(sources, () => true, desiredLanguageServer);
}

/**
 * The same desired object for the same config object, name, scope and file: configs of
 * unchanged entries are the same objects from save to save (informers/structural-sharing.ts),
 * so a reload allocates only for what changed. Weak: forgotten with the config.
 */
function reusing<
  C extends object,
  D extends { name: string; scope: Scope; source: string; syntax?: ExpansionSyntax },
>(
  make: (name: string, config: C, source: SourceServers<C, D['scope']>) => D,
): (name: string, config: C, source: SourceServers<C, D['scope']>) => D {
  const cache = new WeakMap<C, D>();
  return (name, config, source) => {
    const hit = cache.get(config);
    if (
      hit !== undefined &&
      hit.name === name &&
      hit.scope === source.scope &&
      hit.source === source.file &&
      hit.syntax === source.syntax
    )
      return hit;
    const made = make(name, config, source);
    cache.set(config, made);
    return made;
  };
}

const desiredServer = reusing<McpServerConfig, DesiredServer>((name, config, source) => ({
  name,
  config,
  scope: source.scope,
  source: source.file,
  // Only a file with a syntax of its own says it (mcpctl's server file).
  ...(source.syntax === undefined ? {} : { syntax: source.syntax }),
}));

const desiredLanguageServer = reusing<LanguageServerConfig, DesiredLanguageServer>(
  (name, config, source) => ({
    kind: 'LanguageServer',
    name,
    config,
    scope: source.scope,
    source: source.file,
  }),
);

/** The plain name → config map of an assembled set, for equality checks. */
export function configsOf(servers: DesiredServers): Record<string, McpServerConfig> {
  const out = Object.create(null) as Record<string, McpServerConfig>;
  for (const name of Object.keys(servers)) out[name] = servers[name].config;
  return out;
}
