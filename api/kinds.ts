/**
 * The kinds of server mcpctl runs, one descriptor each: everything that differs between an MCP
 * server and a language server and is not their protocol. Every layer reads a kind's words,
 * identities and secrets from here (DESIGN §3: "one kind descriptor per kind"), so a third
 * kind is one more descriptor, not a hunt through the layers (ARCHITECTURE.md, "kind").
 *
 * Guarantees:
 * - A kind's names — its object kind (`McpServer`), its TYPE in `TYPE/NAME` and in events'
 *   involvedObject (`server`), its noun in messages (`server`) — are written here and nowhere
 *   else in the code that handles both kinds.
 * - Identities are the kind's own rule over one mechanism (digest.ts): the connectionId
 *   `${name}::${16 hex}`, the approval hash (64 hex), the approval record name. They are
 *   byte-for-byte what they were before the descriptors (approvals/kind-pins.test.ts): an
 *   MCP server's record is its bare name, a language server's `languageserver/NAME`.
 * - `redact` hides a kind's secret fields in every output unless `--show-secrets`; a
 *   `${VAR}` reference is shown as the file wrote it (redact.ts). A language server's secret
 *   field is `env`. Its `initializationOptions` and `settings` are shown: they are what the
 *   server is configured with (paths, modes, feature switches), the user needs them to debug
 *   it, and neither the format nor any server we know of puts a credential there (a value the
 *   server needs from the environment belongs in `env`, which is hidden).
 */
import { approvalHashOf, changedConnectionFields, connectionIdOf } from './identity.js';
import type { ApprovalHash } from './approval-hash.js';
import { syntaxOfField, syntaxOfScope } from './env-expansion.js';
import type { DesiredServer } from './assemble.js';
import type { DesiredLanguageServer, LanguageServerConfig } from './lsp-config.js';
import {
  changedLanguageServerFields,
  lspApprovalHashOf,
  lspConnectionIdOf,
} from './lsp-identity.js';
import { redact, redactValues } from './redact.js';
import { disclosureOf, languageServerDisclosureOf, type Disclosure } from './disclosure.js';
import type { ExpansionSyntax } from './env-expansion.js';
import type { Scope } from './scope.js';
import type { McpServerConfig } from './server-config.js';
import type { SessionEnvironment } from './session-env.js';

/** The kinds, by object kind: what approvals, connections and `-o json` call them. */
export type ServerKind = 'McpServer' | 'LanguageServer';

/** A desired server of either kind. */
export type AnyDesiredServer = DesiredServer | DesiredLanguageServer;

export interface KindDescriptor<C = unknown, K extends ServerKind = ServerKind> {
  /** The object kind (`McpServer`): `-o json`, a connection's spec, approvals' kind. */
  readonly kind: K;
  /** TYPE of `TYPE/NAME` and of events' involvedObject: `server`, `languageserver`. */
  readonly objectPrefix: string;
  /** How a message names one: `server`, `language server`. */
  readonly noun: string;
  /** The `mcpctl get` resource that lists them, for messages: `servers`, `lsp`. */
  readonly listResource: string;
  /** How a message names server `name` where the kinds share names: `fs`, `languageserver/ts`. */
  label(name: string): string;
  /** The events' involvedObject of `name`: `server/fs`, `languageserver/ts`. */
  objectOf(name: string): string;
  /** The record its approval is kept under in its project's map (never changed: on disk). */
  recordOf(name: string): string;
  /** The approval hash of a config as its file writes it. */
  approvalHash(config: C): ApprovalHash;
  /**
   * The connectionId of an expanded config: `where` is where it runs (an MCP server: the
   * session's workspace, its `cwd` resolved against it; a language server: its folder).
   */
  connectionId(name: string, config: C, where: string, environment?: SessionEnvironment): string;
  /** The names of the connection fields that differ between two configs of one session. */
  changedFields(a: C, b: C, workspace: string): string[];
  /**
   * The config as outputs show it: secret fields' values hidden (references as written, in
   * `syntax`, the file's when not its scope's: `DesiredServer.syntax`).
   */
  redact(config: C, scope: Scope, syntax?: ExpansionSyntax): C;
  /** What the person deciding about it is shown (disclosure.ts: values shown on purpose). */
  disclose(config: C, scope: Scope, syntax?: ExpansionSyntax): Disclosure;
  /** The words `why` and its fixes use of the kind (reconcilers/why.ts). */
  readonly fixWords: KindFixWords;
}

/** Where a server of a kind is written and limited, for the fixes `why` suggests. */
export interface KindFixWords {
  /** Where one is added (`under mcpServers in a settings file or .mcp.json`). */
  readonly addWhere: string;
  /** The project file of the kind (`.mcp.json`). */
  readonly projectFile: string;
  /** The CLI flag that is the kind's ceiling. */
  readonly ceilingFlag: string;
  /** What names what it runs: `command or URL`, `command`. */
  readonly runs: string;
}

export const MCP_SERVERS: KindDescriptor<McpServerConfig, 'McpServer'> = {
  kind: 'McpServer',
  objectPrefix: 'server',
  noun: 'server',
  listResource: 'servers',
  label: (name) => name,
  objectOf: (name) => `server/${name}`,
  recordOf: (name) => name,
  approvalHash: approvalHashOf,
  connectionId: connectionIdOf,
  changedFields: changedConnectionFields,
  redact: (config, scope, syntax) => redact(config, syntax ?? syntaxOfScope(scope)),
  disclose: disclosureOf,
  fixWords: {
    addWhere: 'under mcpServers in a settings file or .mcp.json',
    projectFile: '.mcp.json',
    ceilingFlag: '--allowed-mcp-server-names',
    runs: 'command or URL',
  },
};

/** The prefix of a language server's record name in the approvals file. */
export const LANGUAGE_SERVER_RECORD_PREFIX = 'languageserver/';

export const LANGUAGE_SERVERS: KindDescriptor<LanguageServerConfig, 'LanguageServer'> = {
  kind: 'LanguageServer',
  objectPrefix: 'languageserver',
  noun: 'language server',
  listResource: 'lsp',
  label: (name) => `languageserver/${name}`,
  objectOf: (name) => `languageserver/${name}`,
  recordOf: (name) => `${LANGUAGE_SERVER_RECORD_PREFIX}${name}`,
  approvalHash: lspApprovalHashOf,
  connectionId: lspConnectionIdOf,
  // Only what replaces the process counts (settings and extensionToLanguage never do).
  changedFields: (a, b) => changedLanguageServerFields(a, b),
  // `.lsp.json` and `--lsp-config` write `${VAR}`s in Claude's syntax: those are shown as written.
  redact: (config) =>
    config.env === undefined
      ? config
      : { ...config, env: redactValues(config.env, syntaxOfField('claude', 'env')) ?? {} },
  disclose: languageServerDisclosureOf,
  fixWords: {
    addWhere: 'to .lsp.json or the --lsp-config file',
    projectFile: '.lsp.json',
    ceilingFlag: '--allowed-lsp-server-names',
    runs: 'command',
  },
};

/** Every kind's descriptor, by object kind. */
export const KINDS: {
  readonly McpServer: typeof MCP_SERVERS;
  readonly LanguageServer: typeof LANGUAGE_SERVERS;
} = {
  McpServer: MCP_SERVERS,
  LanguageServer: LANGUAGE_SERVERS,
};

/** Every kind, in the order the session reports them: MCP servers, then language servers. */
export const SERVER_KINDS: readonly ServerKind[] = [MCP_SERVERS.kind, LANGUAGE_SERVERS.kind];

/** The descriptor of `kind` (the kinds as data: a loop over them, a lookup by name). */
export function kindNamed(kind: ServerKind): KindDescriptor {
  return KINDS[kind];
}

/** The kind of a TYPE (`server`, `languageserver`), if it is one. */
export function kindOfPrefix(prefix: string): ServerKind | undefined {
  return Object.values(KINDS).find((k) => k.objectPrefix === prefix)?.kind;
}

export function isLanguageServer(server: AnyDesiredServer): server is DesiredLanguageServer {
  return 'kind' in server && server.kind === LANGUAGE_SERVERS.kind;
}

/** The kind of a desired server. */
export function kindOf(server: AnyDesiredServer): ServerKind {
  return isLanguageServer(server) ? LANGUAGE_SERVERS.kind : MCP_SERVERS.kind;
}
