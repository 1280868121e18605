/**
 * The daemon's method table: one object, method name → { summary, invoke }. To add a method,
 * add a module that returns a MethodTable and spread it in here; cli/rpc/PROTOCOL.md lists them.
 * Handover methods (a connection's first line, after which it carries another protocol) are
 * a table of their own: `gateway.open`.
 */
import { DaemonStoppingError, WorkspaceNotFoundError } from '../../controller/daemon.js';
import {
  NotGatedError,
  NothingHeldError,
  ServerUnavailableError,
  StaleDecisionError,
  UnknownServerError,
} from '../../controller/session.js';
import { RpcCodes, RpcError } from '../rpc/protocol.js';
import type { HandoverTable, MethodTable } from '../rpc/methods.js';
import type { MethodContext } from './context.js';
import { connectionMethods } from './connections.js';
import { daemonMethods } from './daemon.js';
import { gatewayHandovers } from './gateway.js';
import { oauthMethods } from './oauth.js';
import { kindObjectMethods } from './kind-objects.js';
import { logsMethods } from './logs.js';
import { serverMethods } from './servers.js';
import { sessionMethods } from './sessions.js';
import { watchMethods } from './watch.js';

export type { MethodContext } from './context.js';

/** `data` of the error a call to an unavailable server fails with (code -32004). */
export interface UnavailableData {
  readonly name: string;
  readonly reason: string;
  readonly action: string;
}

export function methodTable(ctx: MethodContext): MethodTable {
  const table: MethodTable = {
    ...daemonMethods(ctx, () => ({ ...table, ...handoverTable(ctx) })),
    ...sessionMethods(ctx),
    ...kindObjectMethods(ctx),
    ...serverMethods(ctx),
    ...watchMethods(ctx),
    ...logsMethods(ctx),
    ...connectionMethods(ctx),
    ...oauthMethods(ctx),
  };
  return table;
}

/** The methods that take a connection over (RpcServerOptions.handovers). */
export function handoverTable(ctx: MethodContext): HandoverTable {
  return gatewayHandovers(ctx);
}

/** Domain errors → JSON-RPC errors the CLI can tell apart. */
export function mapDomainError(err: unknown): RpcError | undefined {
  if (err instanceof UnknownServerError)
    return new RpcError(RpcCodes.NotFound, err.message, { name: err.serverName });
  if (err instanceof NotGatedError) return new RpcError(RpcCodes.NotGated, err.message);
  if (err instanceof NothingHeldError) return new RpcError(RpcCodes.Failed, err.message);
  if (err instanceof StaleDecisionError)
    return new RpcError(RpcCodes.Failed, err.message, {
      reason: 'StaleDecision',
      current: err.current,
    });
  if (err instanceof WorkspaceNotFoundError) return new RpcError(RpcCodes.Failed, err.message);
  if (err instanceof DaemonStoppingError) return new RpcError(RpcCodes.ShuttingDown, err.message);
  if (err instanceof ServerUnavailableError) {
    const data: UnavailableData = {
      name: err.why.name,
      reason: err.why.reason,
      action: err.why.action,
    };
    return new RpcError(RpcCodes.Failed, err.message, data);
  }
  return undefined;
}
