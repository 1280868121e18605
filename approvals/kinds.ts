/**
 * Approvals apart by kind (DESIGN §5, issue #24): MCP servers and language servers are decided
 * in the same store and file, never for one another.
 *
 * Guarantees:
 * - A language server's record is kept under `languageserver/NAME` in its project's map, an MCP
 *   server's under `NAME` (each kind's `recordOf`, api/kinds.ts), so deciding about one never
 *   overwrites the other's record of the same name.
 * - Its hash is the language server approval hash (the kind marker mixed in), so even a record
 *   under a colliding name (an MCP server literally named `languageserver/x`) can never match:
 *   a language server is approved only by a decision about that language server's entry.
 */
import {
  KINDS,
  kindNamed,
  isLanguageServer,
  type AnyDesiredServer,
  type ApprovalHash,
  type ServerKind,
} from '../api/index.js';

export { isLanguageServer, kindOf, LANGUAGE_SERVER_RECORD_PREFIX } from '../api/index.js';
export type { ServerKind } from '../api/index.js';

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

/** The record name of a server of `kind`. */
export function approvalRecordOf(kind: ServerKind, name: string): string {
  return kindNamed(kind).recordOf(name);
}

/** Where the decision about `server`'s current config is kept, and its hash. */
export function approvalKeyOf(server: AnyDesiredServer): ApprovalKey {
  return isLanguageServer(server)
    ? {
        record: KINDS.LanguageServer.recordOf(server.name),
        hash: KINDS.LanguageServer.approvalHash(server.config),
      }
    : {
        record: KINDS.McpServer.recordOf(server.name),
        hash: KINDS.McpServer.approvalHash(server.config),
      };
}
