/**
 * How much the daemon's HTTP endpoint takes from its clients, in one place: the socket's
 * budgets (cli/rpc/limits.ts) carried over to HTTP.
 *
 * Guarantees:
 * - Every limit has a finite default: no client, nor all of them together, makes the daemon
 *   hold unbounded memory for bodies, streams, sessions or replay windows.
 * - A request body has the one MCP message limit (api/limits.ts, the socket's `maxLineBytes`,
 *   lowered with it by MCPCTL_RPC_LIMITS); an agent session's requests in flight the socket's
 *   `maxRequestsInFlight`. Its unread bytes, one stream's and all of the session's together,
 *   have the socket's `maxPendingWriteBytes`: an HTTP session is one agent connection, as one
 *   serve's socket is. All sessions' together have twice that: one client at its limit leaves
 *   as much again to all others, and the daemon holds at most 128 MiB its clients do not read.
 * - `MCPCTL_HTTP_LIMITS` (for tests) can only lower a limit, never raise one; a bad value is
 *   refused with a message naming the variable, the entry and the fix.
 */
import type { RpcLimits } from '../rpc/limits.js';

export interface HttpLimits {
  /** Largest request body (one JSON-RPC message or batch): the one MCP message limit. */
  readonly maxBodyBytes: number;
  /** MCP sessions open at once (initializing ones included); one more is answered 503. */
  readonly maxSessions: number;
  /** HTTP exchanges open at once (SSE streams included), all sessions together. */
  readonly maxStreams: number;
  /** HTTP exchanges open at once for one MCP session. */
  readonly maxStreamsPerSession: number;
  /** Unread bytes one response (an answer or stream) may hold in the daemon; past it, dropped. */
  readonly maxStreamBufferedBytes: number;
  /** Unread bytes of one session's responses together; past it, its largest is dropped. */
  readonly maxSessionUnreadBytes: number;
  /** Unread bytes of all responses; past it, the largest of the session holding most goes. */
  readonly maxUnreadBytes: number;
  /** Requests of one MCP session waiting for their answer. */
  readonly maxRequestsInFlight: number;
  /** A session with no request and no open stream this long is closed (later: 404). */
  readonly idleSessionMs: number;
  /** Bytes of events kept for replay (Last-Event-ID), all sessions together. */
  readonly maxReplayBytes: number;
  /** Events kept for replay, all sessions together. */
  readonly maxReplayEvents: number;
}

const MiB = 1024 * 1024;

/** The HTTP limits that follow from the socket's. */
export function defaultHttpLimits(socket: RpcLimits): HttpLimits {
  return Object.freeze({
    maxBodyBytes: socket.maxLineBytes,
    maxSessions: 128,
    // Over HTTP every request in flight is an exchange of its own (a POST and its stream):
    // one agent may have as many open as the socket lets it have requests in flight.
    maxStreams: socket.maxConnections * 8,
    maxStreamsPerSession: socket.maxRequestsInFlight,
    maxStreamBufferedBytes: socket.maxPendingWriteBytes,
    maxSessionUnreadBytes: socket.maxPendingWriteBytes,
    maxUnreadBytes: 2 * socket.maxPendingWriteBytes,
    maxRequestsInFlight: socket.maxRequestsInFlight,
    idleSessionMs: 60 * 60_000,
    maxReplayBytes: 64 * MiB,
    maxReplayEvents: 65_536,
  });
}

export const HTTP_LIMITS_ENV = 'MCPCTL_HTTP_LIMITS';

export class HttpLimitsError extends Error {
  override name = 'HttpLimitsError';
}

/**
 * `defaults` lowered by `MCPCTL_HTTP_LIMITS` (`name=value,…`, positive whole numbers, each at
 * most its default). Unset or empty: the defaults.
 * @throws HttpLimitsError naming the bad entry.
 */
export function httpLimitsFromEnv(
  defaults: HttpLimits,
  env: Readonly<Record<string, string | undefined>>,
): HttpLimits {
  const raw = env[HTTP_LIMITS_ENV]?.trim();
  if (!raw) return defaults;
  const out: { -readonly [K in keyof HttpLimits]: number } = { ...defaults };
  const names = Object.keys(defaults).join(', ');
  for (const entry of raw.split(',')) {
    const [name = '', value = ''] = entry.split('=').map((s) => s.trim());
    if (!Object.hasOwn(defaults, name))
      throw new HttpLimitsError(
        `${HTTP_LIMITS_ENV}: unknown limit '${name}' in '${entry}'; known: ${names}`,
      );
    const key = name as keyof HttpLimits; // Checked by hasOwn just above.
    const n = Number(value);
    const max = defaults[key];
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max)
      throw new HttpLimitsError(
        `${HTTP_LIMITS_ENV}: ${name}=${value} must be a whole number from 1 to ${max} (this variable can only lower a limit)`,
      );
    out[key] = n;
  }
  return Object.freeze(out);
}
