/**
 * The flags that choose a session: its workspace, each kind's ceiling and extra config file
 * (`--workspace`, `--allowed-mcp-server-names`, `--mcp-config`, `--allowed-lsp-server-names`,
 * `--lsp-config`).
 *
 * Guarantees:
 * - Declared here once. Every layer that carries them (the CLI's options, the daemon's, a
 *   session spec, a session, its store) extends or picks `SessionFlags`, so a new flag is one
 *   line here and its readers, never a block copied into each interface.
 * - A ceiling absent means every server of its kind; `[]` means none (DESIGN §4 rule 4).
 */
export interface SessionFlags {
  /** The workspace folder (the session's key; a realpath once the session holds it). */
  readonly workspace: string;
  /** `--allowed-mcp-server-names`: absent = every MCP server, `[]` = none. */
  readonly ceiling?: readonly string[];
  /** `--mcp-config`: MCP servers the user trusts (scope `cli`). */
  readonly mcpConfigPath?: string;
  /** `--allowed-lsp-server-names`: absent = every language server, `[]` = none. */
  readonly lspCeiling?: readonly string[];
  /** `--lsp-config`: language servers the user trusts (scope `cli`). */
  readonly lspConfigPath?: string;
}

/**
 * The flags of `o` that are given, and nothing else of it: an absent flag stays absent (a
 * ceiling `[]` is given: none may run), and an empty path is no file.
 */
export function sessionFlagsOf(o: SessionFlags): SessionFlags {
  return {
    workspace: o.workspace,
    ...(o.ceiling ? { ceiling: o.ceiling } : {}),
    ...(o.mcpConfigPath ? { mcpConfigPath: o.mcpConfigPath } : {}),
    ...(o.lspCeiling ? { lspCeiling: o.lspCeiling } : {}),
    ...(o.lspConfigPath ? { lspConfigPath: o.lspConfigPath } : {}),
  };
}
