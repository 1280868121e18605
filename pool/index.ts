/**
 * The pool's public API: live MCP connections shared by sessions (DESIGN §3, §5).
 *
 * There is deliberately no way to make an AdmissionTicket here: tickets come from
 * `reconcilers/admission.ts` only (tests use `pool/testing/tickets.ts`).
 */
export type {
  AcquireOptions,
  Attachment,
  CallOptions,
  ClientSetup,
  Connector,
  EntryState,
  Holder,
  Lease,
  LostCause,
  McpMessage,
  OpenedClient,
  Pool,
  PoolAgent,
  PoolCaller,
  PoolEntryStats,
  ReleaseOptions,
  ReleaseReason,
  RequestOptions,
} from './types.js';
export { POOL_CLIENT_CAPABILITIES } from './server-requests.js';
export type { AdmissionTicket } from './ticket.js';
export { createPool, type PoolOptions } from './mcp-pool.js';
export { DEFAULT_DRAIN_DELAY_MS } from './pool.js';
export { DEFAULT_TOOL_CALL_TIMEOUT_MS } from './connection.js';
export {
  createConnector,
  discoveryTimeoutOf,
  remoteErrorIsFatal,
  DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS,
  DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS,
  type ConnectorOptions,
} from './connector.js';
export {
  GroupStdioTransport,
  describeExit,
  type ExitInfo,
  type GroupStdioTransportOptions,
} from './stdio-transport.js';
// The orphan record lives in proc/ (shared with language servers); still reachable from here.
export {
  reapOrphans,
  processStartTime,
  ProcessRecorder,
  type ProcessRecord,
  type ReapOptions,
  type ReapReport,
} from '../proc/index.js';
export {
  ConnectError,
  DiscoveryDeadline,
  DiscoveryTimeoutError,
  PoolError,
  RpcError,
  UnauthorizedConnectError,
} from './errors.js';
export type { AuthFailure, AuthPort, ConnectionAuth } from './auth-port.js';
