/**
 * A session's language server as the gateway's `lsp_*` tools route to it: by a file's
 * extension, to its live connection when Ready, else to why it is not and the fix.
 */
import type { LspConnection } from '../lsp/connection.js';

export interface LspTarget {
  readonly name: string;
  /** `{".ts": "typescript"}`: the files it answers for. */
  readonly extensionToLanguage: Readonly<Record<string, string>>;
  /** Its connection, only while it is Ready. */
  readonly connection: LspConnection | undefined;
  /** When not Ready: the `why` answer (reason, message, action). */
  readonly unavailable?: {
    readonly reason: string;
    readonly message: string;
    readonly action: string;
  };
}
