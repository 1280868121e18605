/**
 * The errors of the language-server client, so callers (the gateway's `lsp_*` tools) can tell
 * an agent's mistake from a server's trouble without parsing messages.
 *
 * Guarantees:
 * - Every message names the server (`language server "NAME": …`) or the file it is about, and
 *   says what to do where there is something to do.
 * - Messages carry the server's last stderr lines only where they explain a failure to start
 *   or a loss; never env values (the command and args are the user's config, not secrets).
 */
import { messageOf } from '../api/index.js';

/** What went wrong, for callers that answer differently (an agent's bad argument vs a server). */
export type LspErrorKind =
  /** The agent's argument: a file outside the workspace, missing, or a position past the end. */
  | 'badRequest'
  /** The server did not start, is not running, or went away. */
  | 'server'
  /** The server did not answer in time (it may still be busy). */
  | 'timeout'
  /** The server answered with a JSON-RPC error. */
  | 'response'
  /** The asker gave up (the agent cancelled its call); the server was told `$/cancelRequest`. */
  | 'cancelled';

export class LspError extends Error {
  readonly kind: LspErrorKind;
  /** The JSON-RPC error code, for `response` errors. */
  readonly code: number | undefined;
  /**
   * A failed start's last stderr lines, whole (the message quotes the last few): what
   * `mcpctl logs` shows of a server that never came up, as an MCP ConnectError carries them.
   */
  readonly stderrTail: readonly string[];

  constructor(
    kind: LspErrorKind,
    message: string,
    options?: { cause?: unknown; code?: number; stderrTail?: readonly string[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LspError';
    this.kind = kind;
    this.code = options?.code;
    this.stderrTail = options?.stderrTail ?? [];
  }
}

/** How many stderr lines a start or loss message quotes. */
export const STDERR_LINES_IN_MESSAGE = 10;

/** `message`, then the server's last stderr lines when there are any. */
export function withStderr(message: string, stderrTail: readonly string[]): string {
  const tail = stderrTail.slice(-STDERR_LINES_IN_MESSAGE);
  return tail.length === 0 ? message : `${message}\nlast stderr lines:\n${tail.join('\n')}`;
}

/** The message of anything thrown: api/'s, re-exported for lsp/'s modules. */
export { messageOf };
