/**
 * The names of the kinds of server, written once: what every other module (types, descriptors,
 * the CLI's TYPE words, pools, approvals) takes a kind's name from. A leaf: it imports nothing,
 * so the config and object types can name their kind without an import circle with the
 * descriptors (kinds.ts), which are built over those types.
 *
 * Guarantees:
 * - Each kind's object kind (`McpServer`), TYPE (`server`), noun, list resource, daemon
 *   resource (`servers`) and the TYPE words the command line accepts for it appear as literals here and in no other production
 *   module (a test scans for them).
 * - The TYPE words of the kinds are disjoint, so a `TYPE/NAME` names one kind.
 */

/** An MCP server's names. */
export const MCP_SERVER_NAMES = {
  kind: 'McpServer',
  objectPrefix: 'server',
  noun: 'server',
  listResource: 'servers',
  resource: 'servers',
  typeWords: ['server', 'servers', 'mcpserver', 'mcpservers'],
} as const;

/** A language server's names. */
export const LANGUAGE_SERVER_NAMES = {
  kind: 'LanguageServer',
  objectPrefix: 'languageserver',
  noun: 'language server',
  listResource: 'lsp',
  resource: 'languageservers',
  typeWords: ['languageserver', 'languageservers', 'lsp'],
} as const;

/** An MCP server's object kind: `-o json`, a connection's spec, approvals' kind. */
export type McpServerKindName = typeof MCP_SERVER_NAMES.kind;
/** A language server's object kind. */
export type LanguageServerKindName = typeof LANGUAGE_SERVER_NAMES.kind;
/** The kinds, by object kind: what approvals, connections and `-o json` call them. */
export type ServerKind = McpServerKindName | LanguageServerKindName;

export const MCP_SERVER: McpServerKindName = MCP_SERVER_NAMES.kind;
export const LANGUAGE_SERVER: LanguageServerKindName = LANGUAGE_SERVER_NAMES.kind;

/**
 * The daemon's resource of a kind: `get`'s canonical resource, its list and describe methods'
 * prefix (`servers.list`) and its watch topic.
 */
export type KindResource = typeof MCP_SERVER_NAMES.resource | typeof LANGUAGE_SERVER_NAMES.resource;

/** One value per kind, keyed by object kind (desired state, changes, resync names). */
export type PerKind<T> = { readonly [K in ServerKind]: T };
