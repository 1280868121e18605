/**
 * The errors the pool reports, so callers can tell a failed connect from a timed-out one
 * without parsing messages.
 *
 * Guarantees:
 * - Every ConnectError message starts with `server "<name>":` and says what failed, so the
 *   reconciler can put it in a condition as is.
 * - A connect failure of a stdio server carries the server's last stderr lines, in
 *   `stderrTail` and (the last STDERR_LINES_IN_MESSAGE of them) in the message itself: the
 *   reason a server dies at start is almost always there.
 * - Messages never contain env or header values (secrets, DESIGN §5); URLs are shown without
 *   credentials, query values or fragment.
 */
import { redactUrl, scrubUrl, messageOf } from '../api/index.js';

/** How many stderr lines a connect-failure message quotes; the full tail is on the error. */
export const STDERR_LINES_IN_MESSAGE = 20;

export class PoolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PoolError';
  }
}

/** No live connection serves the key (never opened, gone, or stopped for idling). */
export class NotLiveError extends PoolError {
  constructor(key: string) {
    super(`no live connection for ${key}`);
    this.name = 'NotLiveError';
  }
}

/**
 * An error meant for an MCP peer as it is: its JSON-RPC `code` and a message without prefix.
 * (The SDK's McpError adds "MCP error <code>: " to its message, so a relayed one says it twice;
 * the SDK sends any thrown error's numeric `code` and `message`.)
 */
export class RpcError extends Error {
  readonly code: number;

  constructor(code: number, message: string) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
  }
}

/** A connection could not be opened (spawn, initialize or the first listing failed). */
export class ConnectError extends PoolError {
  readonly server: string;
  /** What was going on: 'spawn', 'connect', 'initialize', 'tools/list', 'prompts/list'. */
  readonly phase: string;
  readonly stderrTail: readonly string[];

  constructor(
    server: string,
    phase: string,
    what: string,
    stderrTail: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(withStderr(`server "${server}": ${what}`, stderrTail), options);
    this.name = 'ConnectError';
    this.server = server;
    this.phase = phase;
    this.stderrTail = stderrTail;
  }
}

/**
 * The server wants an OAuth login that the daemon does not have (or that the server revoked).
 * Nothing is retried until someone logs in (`mcpctl login NAME`).
 */
export class UnauthorizedConnectError extends ConnectError {
  readonly unauthorized = true;

  constructor(server: string, what: string, options?: { cause?: unknown }) {
    super(server, 'connect', what, [], options);
    this.name = 'UnauthorizedConnectError';
  }
}

/** The discovery deadline (`discoveryTimeoutMs`) passed; the process, if any, was killed. */
export class DiscoveryTimeoutError extends ConnectError {
  readonly timeoutMs: number;

  constructor(
    server: string,
    phase: string,
    timeoutMs: number,
    stderrTail: readonly string[] = [],
  ) {
    super(
      server,
      phase,
      `timed out after ${timeoutMs} ms during ${phase} (discoveryTimeoutMs); the connection was closed and its process killed`,
      stderrTail,
    );
    this.name = 'DiscoveryTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The abort reason the pool uses when the discovery deadline passes. A connector that sees it
 * on its signal knows the abort is a timeout (and not a cancel) and can name its phase.
 * It is an Error so that the SDK, which stringifies abort reasons, prints something useful.
 */
export class DiscoveryDeadline extends Error {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`discovery deadline of ${timeoutMs} ms passed`);
    this.name = 'DiscoveryDeadline';
    this.timeoutMs = timeoutMs;
  }
}

/** Appends the last stderr lines to a message, indented, when there are any. */
export function withStderr(message: string, stderrTail: readonly string[]): string {
  if (stderrTail.length === 0) return message;
  const shown = stderrTail.slice(-STDERR_LINES_IN_MESSAGE);
  const header =
    shown.length < stderrTail.length
      ? `stderr (last ${shown.length} of ${stderrTail.length} lines):`
      : 'stderr:';
  return `${message}\n${header}\n${shown.map((l) => `  ${l}`).join('\n')}`;
}

/** The message of anything thrown: api/'s, re-exported for pool/'s modules. */
export { messageOf };

/**
 * Runs someone else's callback (a holder's, an agent's): a throw is reported through `warn`
 * as `<what> threw: <message>`, and goes no further.
 */
export function callSafely(warn: (message: string) => void, what: string, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    warn(`${what} threw: ${messageOf(err)}`);
  }
}

/**
 * URLs in messages and logs: userinfo, query values and fragment hidden (api/redact.ts, the
 * one place that knows which parts of a URL may be secret).
 */
export { scrubUrl };
export const safeUrl = redactUrl;
