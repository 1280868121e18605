/**
 * JSON-RPC batches over the HTTP endpoint. MCP 2025-03-26 added them (the revisions before it
 * take JSON-RPC 2.0 as it is, batches included) and 2025-06-18 removed them, so whether a
 * POSTed array may run depends on the protocol the session negotiated in its `initialize`.
 *
 * Guarantees:
 * - `negotiatedVersion` is the version the SDK's server answers an `initialize` with (the one
 *   asked for when it knows it, else its latest), the one the gateway answered.
 * - `batchRefusal` refuses every batch of a session at 2025-06-18 or later (whatever version a
 *   request's header claims: the session's protocol is the one negotiated), and an
 *   `initialize` in a batch at any version (2025-03-26 forbids that too); the message says why
 *   in one line and quotes nothing of the body. Batches it lets through are the SDK
 *   transport's, at most 100 messages (its limit, the socket's `maxBatch` as well).
 * - `serve` refuses a batch at every version (an agent's line is one message, gateway/agent-
 *   message.ts); both answer -32600 with id null.
 */
import {
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

/** The first protocol version without JSON-RPC batches. */
export const BATCHLESS_SINCE = '2025-06-18';

/** The version a server of the SDK answers an `initialize` asking for `requested` with. */
export function negotiatedVersion(requested: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/**
 * Why `body` must be refused as a batch, or undefined. `version`: the session's negotiated
 * protocol; undefined for a POST without a session (an initialize).
 */
export function batchRefusal(body: unknown, version: string | undefined): string | undefined {
  if (!Array.isArray(body)) return undefined;
  if (body.some((message) => isInitializeRequest(message)))
    return 'invalid request: initialize must be sent alone, never in a JSON-RPC batch';
  // Versions are dates: they compare as strings.
  if (version !== undefined && version >= BATCHLESS_SINCE)
    return `invalid request: a batch: MCP ${version} (this session's protocol) takes one message per POST; JSON-RPC batches were removed in ${BATCHLESS_SINCE}`;
  return undefined;
}
