/**
 * One configured language server of a session as its question routing sees it
 * (lsp-questions.ts): which files it handles and, while it is Ready, its live connection.
 * Types only. It stays inside the session: askers (the gateway) see an LspServerView, never
 * the connection.
 */
import type { LspConnection } from '../lsp/connection.js';

export interface LspTarget {
  readonly name: string;
  /** `{".ts": "typescript"}`: the files it answers about (routing only). */
  readonly extensionToLanguage: Readonly<Record<string, string>>;
  /** Set while it is Ready, undefined otherwise. */
  readonly connection: LspConnection | undefined;
  /**
   * The session's workspace (absolute realpath): `file` arguments resolve, and answers' paths
   * show, relative to it, even when the server works on a folder inside it. Absent: the
   * server's folder.
   */
  readonly workspace?: string;
  /** Why it is not Ready and the fix (its `why`), when it is not. */
  readonly unavailable?: { reason: string; message: string; action: string };
}
