/**
 * Starting the daemon's HTTP endpoint: its limits (the socket's, lowered by
 * MCPCTL_HTTP_LIMITS), the listener, and the log line that names its URL.
 *
 * Guarantees: the daemon logs `http listening` with the `url` it serves (the port the system
 * picked when asked for 0), never the token; a port that cannot be bound or a bad limit is a
 * CliError saying what to do, and nothing stays listening then.
 */
import type { Daemon } from '../../controller/daemon.js';
import { CliError, EXIT_USAGE, messageOf } from '../errors.js';
import type { RpcLimits } from '../rpc/limits.js';
import { HttpEndpoint, type HttpEndpointLog } from './endpoint.js';
import { HttpLimitsError, defaultHttpLimits, httpLimitsFromEnv } from './limits.js';

export interface HttpServeOptions {
  readonly host: string;
  readonly port: number;
  readonly allowRemote: boolean;
  readonly token: string;
}

export interface HttpServeDeps {
  readonly daemon: Daemon;
  /** The socket's limits, which the HTTP ones follow. */
  readonly limits: RpcLimits;
  readonly version: string;
  readonly log: HttpEndpointLog;
}

/** What a failure to bind `host:port` says: the address, and what to do. */
export function listenError(o: Pick<HttpServeOptions, 'host' | 'port'>, err: unknown): CliError {
  const where = `${o.host}:${o.port}`;
  if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
    return new CliError(`cannot serve HTTP on ${where}: the port is in use; pass another --http`);
  return new CliError(`cannot serve HTTP on ${where}: ${messageOf(err)}`);
}

export async function startHttp(o: HttpServeOptions, deps: HttpServeDeps): Promise<HttpEndpoint> {
  let limits;
  try {
    limits = httpLimitsFromEnv(defaultHttpLimits(deps.limits), process.env);
  } catch (err) {
    if (err instanceof HttpLimitsError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
  let endpoint: HttpEndpoint;
  try {
    endpoint = await HttpEndpoint.listen({
      host: o.host,
      port: o.port,
      allowRemote: o.allowRemote,
      token: o.token,
      limits,
      daemon: deps.daemon,
      version: deps.version,
      log: deps.log,
    });
  } catch (err) {
    throw listenError(o, err);
  }
  deps.log.info(
    { url: endpoint.url, remote: o.allowRemote },
    'http listening (MCP Streamable HTTP; bearer token in ~/.mcpctl/http-token)',
  );
  return endpoint;
}
