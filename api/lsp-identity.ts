/**
 * Identities of a language server (the second kind, DESIGN §1), derived from its `.lsp.json`
 * entry as identity.ts derives an MCP server's.
 *
 * Guarantees:
 * - connectionId `${name}::${16 hex}` over the fields that change the process: a kind marker,
 *   transport, command, args, env, initializationOptions, the resolved workspace folder, and the
 *   digest of the agent environment it starts in (as for a stdio MCP server; the daemon's own
 *   environment adds nothing). Not in it: `settings` (sent as `didChangeConfiguration`),
 *   `extensionToLanguage` (routing), timeouts, restartOnCrash, maxRestarts, disabled. The kind
 *   marker keeps an MCP server and a language server of one name and command apart.
 * - The approval hash is 64 hex over the whole entry as written, with the kind marker mixed in,
 *   so an MCP server's approval can never match a language server's, and the reverse.
 * - Expansion: `${VAR}` / `${VAR:-default}` (Claude's syntax, both `.lsp.json` and
 *   `--lsp-config`) in `command`, `args`, `env` values and `workspaceFolder`, by the expander of
 *   `.mcp.json` (env-expansion.ts); an unset variable without default is `missing`.
 * - The workspace folder is `workspaceFolder` resolved against the workspace (default: the
 *   workspace itself); one outside the workspace is refused with a message naming the field,
 *   never silently replaced by the root.
 */
import path from 'node:path';
import { approvalHashOver, type ApprovalHash } from './approval-hash.js';
import { changedFieldsOf, fingerprintIdOf } from './digest.js';
import {
  expandClaudeConfig,
  type ClaudeFields,
  type Expansion,
  type SessionEnv,
} from './env-expansion.js';
import { LANGUAGE_SERVER } from './kind-names.js';
import type { LanguageServerConfig } from './lsp-config.js';
import type { SessionEnvironment } from './session-env.js';

/** Mixed into every language server identity, so no MCP identity can equal one. */
export const LSP_KIND_MARKER = LANGUAGE_SERVER;

/** The fields of a language server entry `${VAR}` expands in. */
export const LSP_CLAUDE_FIELDS: ClaudeFields = [
  ['command', 'text'],
  ['args', 'list'],
  ['env', 'record'],
  ['workspaceFolder', 'text'],
];

/** A language server entry with the session's variables expanded (Claude syntax). */
export function expandLanguageServerConfig(
  config: LanguageServerConfig,
  env: SessionEnv,
): Expansion<LanguageServerConfig> {
  return expandClaudeConfig(config, LSP_CLAUDE_FIELDS, env);
}

/** `folder` is `root` or inside it (both absolute, normalised). */
export function isInsideFolder(folder: string, root: string): boolean {
  const rel = path.relative(root, folder);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** The process-relevant fields of an expanded entry, absent ≡ null / [] / {}. */
export function lspConnectionFieldsOf(
  config: LanguageServerConfig,
  workspaceFolder: string,
  environment?: SessionEnvironment,
): Record<string, unknown> {
  return {
    kind: LSP_KIND_MARKER,
    transport: config.transport ?? 'stdio',
    command: config.command ?? null,
    args: config.args ?? [],
    env: config.env ?? {},
    initializationOptions: config.initializationOptions ?? null,
    workspaceFolder,
    ...(environment?.kind === 'agent' ? { environment: environment.digest } : {}),
  };
}

/**
 * `config`: the expanded entry (variables substituted, command as found on the PATH);
 * `workspaceFolder`: the resolved folder; `environment`: the session's.
 */
export function lspConnectionIdOf(
  name: string,
  config: LanguageServerConfig,
  workspaceFolder: string,
  environment?: SessionEnvironment,
): string {
  return fingerprintIdOf(name, lspConnectionFieldsOf(config, workspaceFolder, environment));
}

/**
 * The names of the process fields (those of the connectionId) that differ between two entries
 * of one session, for `diff`: the folder compared as written, both resolve in one workspace.
 */
export function changedLanguageServerFields(
  a: LanguageServerConfig,
  b: LanguageServerConfig,
): string[] {
  return changedFieldsOf(
    lspConnectionFieldsOf(a, a.workspaceFolder ?? '.'),
    lspConnectionFieldsOf(b, b.workspaceFolder ?? '.'),
  );
}

/** 64 hex over the entry as its file writes it, the kind marker mixed in. */
export function lspApprovalHashOf(config: LanguageServerConfig): ApprovalHash {
  return approvalHashOver({ kind: LSP_KIND_MARKER, config });
}
