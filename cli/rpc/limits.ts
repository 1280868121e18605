/**
 * How much the daemon's socket takes from its clients, in one place (cli/rpc/PROTOCOL.md, "Limits").
 *
 * Guarantees:
 * - Every limit has a finite default: no client, nor all of them together, makes the daemon
 *   hold unbounded memory for messages, answers or connections.
 * - `MCPCTL_RPC_LIMITS` (for tests) can only lower a limit, never raise one, so a daemon
 *   started with it is at least as strict as the defaults; a bad value is refused with a
 *   message naming the variable, the entry and the fix.
 */

import { MAX_MESSAGE_BYTES } from '../../api/limits.js';

export interface RpcLimits {
  /**
   * Largest message (one line) a client may send; on an agent connection, also a bound of the
   * MCP messages the gateway sends it, with MAX_AGENT_STDIO_MESSAGE_BYTES (api/limits.ts).
   */
  readonly maxLineBytes: number;
  /** Bytes of unfinished messages held for all connections together. */
  readonly maxBufferedBytes: number;
  /** A connection holding an unfinished message that makes no progress this long is closed. */
  readonly idleFrameMs: number;
  /** Connections open at once; one more is answered with an error and closed. */
  readonly maxConnections: number;
  /** Requests in one JSON-RPC batch. */
  readonly maxBatch: number;
  /** Largest answer line (a batch's answers together); past it, a "too large" error instead. */
  readonly maxResponseBytes: number;
  /** A client whose unread output passes this is cut off. */
  readonly maxPendingWriteBytes: number;
  /** MCP requests of one agent connection (gateway.open) waiting for their answer. */
  readonly maxRequestsInFlight: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_RPC_LIMITS: RpcLimits = Object.freeze({
  maxLineBytes: MAX_MESSAGE_BYTES,
  maxBufferedBytes: 64 * MiB,
  idleFrameMs: 30_000,
  maxConnections: 256,
  maxBatch: 100,
  maxResponseBytes: 128 * MiB,
  maxPendingWriteBytes: 64 * MiB,
  maxRequestsInFlight: 1024,
});

/** The variable tests use to lower the limits of a daemon they start. */
export const RPC_LIMITS_ENV = 'MCPCTL_RPC_LIMITS';

export class RpcLimitsError extends Error {
  override name = 'RpcLimitsError';
}

/**
 * Parses `MCPCTL_RPC_LIMITS` (`name=value,name=value`, values positive integers, each at
 * most its default). Unset or empty: the defaults.
 * @throws RpcLimitsError naming the bad entry.
 */
export function limitsFromEnv(env: Readonly<Record<string, string | undefined>>): RpcLimits {
  const raw = env[RPC_LIMITS_ENV]?.trim();
  if (!raw) return DEFAULT_RPC_LIMITS;
  const out: { -readonly [K in keyof RpcLimits]: number } = { ...DEFAULT_RPC_LIMITS };
  const names = Object.keys(DEFAULT_RPC_LIMITS).join(', ');
  for (const entry of raw.split(',')) {
    const [name = '', value = ''] = entry.split('=').map((s) => s.trim());
    if (!Object.hasOwn(DEFAULT_RPC_LIMITS, name))
      throw new RpcLimitsError(
        `${RPC_LIMITS_ENV}: unknown limit '${name}' in '${entry}'; known: ${names}`,
      );
    const key = name as keyof RpcLimits; // Checked by hasOwn just above.
    const n = Number(value);
    const max = DEFAULT_RPC_LIMITS[key];
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max)
      throw new RpcLimitsError(
        `${RPC_LIMITS_ENV}: ${name}=${value} must be a whole number from 1 to ${max} (this variable can only lower a limit)`,
      );
    out[key] = n;
  }
  return Object.freeze(out);
}
