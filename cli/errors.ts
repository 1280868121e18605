/**
 * Errors the CLI turns into exit codes (DESIGN §7): 1 for a failure, 2 for bad usage.
 *
 * Guarantees: every message says what went wrong and, where there is one, what to do next;
 * `main` prints it to stderr as it is (no prefix), so exact messages stay exact.
 */
import { messageOf } from '../api/message-of.js';

/** Exit codes of every `mcpctl` command. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A failure the user can act on: printed to stderr, exit 1. */
export class CliError extends Error {
  override name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
  }
}

/** Bad usage our own checks found (commander finds the rest): exit 2. */
export class UsageError extends CliError {
  override name = 'UsageError';
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}

/** The exact sentence of DESIGN §7 / issue 6 when no daemon answers. */
export function noDaemonMessage(socket: string): string {
  return `no mcpctl daemon at ${socket}; start one with 'mcpctl daemon'`;
}

/** The message of anything thrown (api/'s messageOf), beside cli/'s other error helpers. */
export { messageOf };
