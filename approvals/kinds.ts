/**
 * Approvals apart by kind (DESIGN §5, issue #24): MCP servers and language servers are decided
 * in the same store and file, never for one another.
 *
 * Guarantees:
 * - A language server's record is kept under `languageserver/NAME` in its project's map, an MCP
 *   server's under `NAME`, so deciding about one never overwrites the other's record of the
 *   same name.
 * - Its hash is the language server approval hash (the kind marker mixed in), so even a record
 *   under a colliding name (an MCP server literally named `languageserver/x`) can never match:
 *   a language server is approved only by a decision about that language server's entry.
 */
import {
  approvalHashFor,
  lspApprovalHashFor,
  type ApprovalHash,
  type DesiredLanguageServer,
  type DesiredServer,
} from '../api/index.js';

/** The two kinds of server a decision can be about. */
export type ServerKind = 'McpServer' | 'LanguageServer';

/** A server as a decision names it: its kind and its name in the config. */
export interface ServerRef {
  readonly kind: ServerKind;
  readonly name: string;
}

/** Where a server's decision is kept (`record`, in its project's map) and for which config. */
export interface ApprovalKey {
  readonly record: string;
  readonly hash: ApprovalHash;
}

/** The prefix of a language server's record name. */
export const LANGUAGE_SERVER_RECORD_PREFIX = 'languageserver/';

/** The record name of a server of `kind`. */
export function approvalRecordOf(kind: ServerKind, name: string): string {
  return kind === 'LanguageServer' ? `${LANGUAGE_SERVER_RECORD_PREFIX}${name}` : name;
}

export function isLanguageServer(
  server: DesiredServer | DesiredLanguageServer,
): server is DesiredLanguageServer {
  return 'kind' in server && server.kind === 'LanguageServer';
}

/** The kind of a desired server. */
export function kindOf(server: DesiredServer | DesiredLanguageServer): ServerKind {
  return isLanguageServer(server) ? 'LanguageServer' : 'McpServer';
}

/** Where the decision about `server`'s current config is kept, and its hash. */
export function approvalKeyOf(server: DesiredServer | DesiredLanguageServer): ApprovalKey {
  return isLanguageServer(server)
    ? {
        record: approvalRecordOf('LanguageServer', server.name),
        hash: lspApprovalHashFor(server.config),
      }
    : { record: server.name, hash: approvalHashFor(server.config) };
}
