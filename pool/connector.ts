/**
 * The default Connector: opens a real MCP connection for an admitted server.
 *
 * Guarantees:
 * - The transport is the one `transportOf(config)` names: stdio (our process-group transport),
 *   streamable HTTP (`httpUrl`, or `url` with `type: "http"`), SSE (`url`). Remote ones send
 *   the config's `headers` on every request (via `requestInit`).
 * - stdio servers start in their session's environment (`ticket.env`: the agent's, or the
 *   daemon's own), then `serverEnv`, then their `env` — never in another agent's, since the
 *   connectionId names the environment — and run in `workingDirectoryOf`: their `cwd`
 *   resolved against the session's workspace (`ticket.cwd`), else the workspace — the very
 *   directory their connectionId names.
 * - The connector honours the pool's signal (see Connector): on abort it closes what it
 *   opened — for stdio the whole process group is gone — before it rejects.
 * - Every failure is a ConnectError naming the server and the phase; a stdio failure carries
 *   the stderr tail; a timeout is a DiscoveryTimeoutError saying what timed out.
 * - Nothing is left behind on failure: no process, no open stream.
 * - The pool's `setup` (ClientSetup) runs on the Client before initialize, so every server
 *   sees the client capabilities the pool relays to agents and is answered from the start.
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import {
  oauthTargetOf,
  transportOf,
  urlOf,
  workingDirectoryOf,
  type McpServerConfig,
  type Transport as TransportKind,
} from '../api/index.js';
import type { ProcessHooks } from '../proc/index.js';
import { abortable } from './abort.js';
import type { AuthPort } from './auth-port.js';
import {
  ConnectError,
  DiscoveryDeadline,
  DiscoveryTimeoutError,
  messageOf,
  safeUrl,
  scrubUrl,
  UnauthorizedConnectError,
} from './errors.js';
import { describeExit, GroupStdioTransport } from './stdio-transport.js';
import { TrafficGuard } from './traffic.js';
import type { AdmissionTicket } from './ticket.js';
import type { ClientSetup, Connector, OpenedClient } from './types.js';

export const DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS = 30_000;
export const DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS = 10_000;

/** The discovery deadline of a server: its `discoveryTimeoutMs`, else 30 s stdio / 10 s remote. */
export function discoveryTimeoutOf(config: McpServerConfig): number {
  if (config.discoveryTimeoutMs !== undefined) return config.discoveryTimeoutMs;
  let kind: TransportKind;
  try {
    kind = transportOf(config);
  } catch {
    kind = 'stdio';
  }
  return kind === 'stdio'
    ? DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS
    : DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS;
}

export interface ConnectorOptions {
  /** stdio close: ms after ending stdin, and after SIGTERM. Default 1000. */
  readonly graceMs?: number;
  /** stdio close: ms after SIGKILL for the group to be reaped. Default 3000. */
  readonly reapWaitMs?: number;
  /** How we introduce ourselves in `initialize`. */
  readonly clientInfo?: Implementation;
  /** What to tell of a stdio server's processes (the orphan record: proc/orphans.ts). */
  readonly processes?: (ticket: AdmissionTicket) => ProcessHooks;
  /** Budgets of each stdio connection (default: DEFAULT_TRAFFIC_LIMITS). */
  readonly traffic?: () => TrafficGuard;
  /** OAuth grants for remote servers (auth/ implements it); absent: a 401 is a plain failure. */
  readonly auth?: AuthPort;
  /**
   * Set in every stdio server's environment over its session's: the marks of the mcpctl that
   * runs it (a `mcpctl serve` started as a server knows it is inside mcpctl).
   */
  readonly serverEnv?: Readonly<Record<string, string>>;
}

const CLIENT_INFO: Implementation = { name: 'mcpctl', version: '0.1.0' };

/**
 * The SDK's own request timeout must not beat the pool's deadline to it (the deadline's error
 * says what timed out); it is set a little later than the deadline.
 */
const SDK_TIMEOUT_SLACK_MS = 1000;

/** How long an HTTP connection's close waits for the server to end its session. */
const TERMINATE_SESSION_MS = 2000;

export function createConnector(options: ConnectorOptions = {}): Connector {
  return async (ticket, signal, setup) => {
    let kind: TransportKind;
    try {
      kind = transportOf(ticket.config, ticket.name);
    } catch (err) {
      throw new ConnectError(ticket.name, 'connect', messageOf(err).replace(/^server \S+: /, ''));
    }
    if (kind === 'stdio') return connectStdio(ticket, signal, options, setup);
    return connectRemote(ticket, kind, signal, options, setup);
  };
}

/**
 * A client of ours, connected over `transport` (initialize done) within the discovery deadline
 * and the abort signal. On failure the transport is left to the caller, who closes it first.
 */
async function connectClient(
  transport: Transport,
  config: McpServerConfig,
  signal: AbortSignal,
  options: ConnectorOptions,
  setup: ClientSetup | undefined,
): Promise<Client> {
  const client = new Client(options.clientInfo ?? CLIENT_INFO, { capabilities: {} });
  // The pool's capabilities and server→client handlers (server-requests.ts), before initialize.
  setup?.(client);
  const timeout = discoveryTimeoutOf(config) + SDK_TIMEOUT_SLACK_MS;
  await abortable(client.connect(transport, { signal, timeout }), signal);
  return client;
}

async function connectStdio(
  ticket: AdmissionTicket,
  signal: AbortSignal,
  options: ConnectorOptions,
  setup: ClientSetup | undefined,
): Promise<OpenedClient> {
  const { config } = ticket;
  const command = config.command ?? '';
  const cwd = workingDirectoryOf(config, ticket.cwd) ?? ticket.cwd;
  const transport = new GroupStdioTransport({
    name: ticket.name,
    command,
    args: config.args ?? [],
    baseEnv: { ...ticket.env.vars, ...options.serverEnv },
    env: config.env ?? {},
    cwd,
    graceMs: options.graceMs,
    reapWaitMs: options.reapWaitMs,
    ...options.processes?.(ticket),
    traffic: options.traffic?.() ?? new TrafficGuard(),
  });
  let client: Client;
  try {
    client = await connectClient(transport, config, signal, options, setup);
  } catch (err) {
    // Kill first, then report: the caller must never see a failure while the process lives.
    await transport.close();
    throw stdioFailure(ticket, command, cwd, transport, signal, err);
  }
  return {
    client,
    transport,
    pid: transport.pid,
    stderrTail: () => transport.stderrTail(),
    stderrSince: (seq) => transport.stderrSince(seq),
    // Every error our stdio transport reports means the pipe or the process is broken.
    isFatalError: () => true,
    close: () => client.close(),
    traffic: transport.traffic,
  };
}

function stdioFailure(
  ticket: AdmissionTicket,
  command: string,
  cwd: string,
  transport: GroupStdioTransport,
  signal: AbortSignal,
  err: unknown,
): ConnectError {
  const name = ticket.name;
  const phase = transport.pid === undefined ? 'spawn' : 'initialize';
  const tail = transport.stderrTail();
  const aborted = abortedError(name, phase, signal, tail);
  if (aborted) return aborted;
  const spawnError = transport.spawnError;
  if (spawnError) {
    const code = (spawnError as NodeJS.ErrnoException).code;
    let what: string;
    if (code === 'ENOENT' && !existsSync(cwd)) {
      what = `cannot start "${command}": working directory ${cwd} does not exist`;
    } else if (code === 'ENOENT') {
      what = `cannot start "${command}": command not found (ENOENT); check "command" and PATH`;
    } else if (code === 'EACCES') {
      what = `cannot start "${command}": permission denied (EACCES)`;
    } else {
      what = `cannot start "${command}": ${spawnError.message}`;
    }
    return new ConnectError(name, 'spawn', what, tail, { cause: spawnError });
  }
  const exit = transport.exit;
  if (exit) {
    return new ConnectError(name, phase, `${describeExit(exit)} during ${phase}`, tail, {
      cause: err,
    });
  }
  return new ConnectError(name, phase, `${phase} failed: ${messageOf(err)}`, tail, { cause: err });
}

/** The error for an aborted connect: a timeout names its phase, anything else is a cancel. */
function abortedError(
  name: string,
  phase: string,
  signal: AbortSignal,
  tail: readonly string[],
): ConnectError | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  if (reason instanceof DiscoveryDeadline) {
    return new DiscoveryTimeoutError(name, phase, reason.timeoutMs, tail);
  }
  return new ConnectError(
    name,
    phase,
    `connect cancelled during ${phase}: ${messageOf(reason)}`,
    tail,
  );
}

async function connectRemote(
  ticket: AdmissionTicket,
  kind: Exclude<TransportKind, 'stdio'>,
  signal: AbortSignal,
  options: ConnectorOptions,
  setup: ClientSetup | undefined,
): Promise<OpenedClient> {
  const { name, config } = ticket;
  const raw = urlOf(config) ?? '';
  const label = kind === 'http' ? 'streamable HTTP' : 'SSE';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConnectError(name, 'connect', `invalid URL for ${label}: ${safeUrl(raw)}`);
  }
  const requestInit: RequestInit | undefined =
    config.headers !== undefined ? { headers: { ...config.headers } } : undefined;
  // OAuth: the daemon's shared grant for this server URL, if the config does not opt out.
  const target = options.auth ? oauthTargetOf(config, ticket.scope) : undefined;
  let onUnauthorized: (() => void) | undefined;
  let loginRequired = false;
  const auth =
    target && options.auth
      ? options.auth.authFor(target, () => {
          loginRequired = true;
          onUnauthorized?.();
        })
      : undefined;
  const authOptions = auth ? { authProvider: auth.provider, fetch: auth.fetch } : {};
  const transport =
    kind === 'http'
      ? new StreamableHTTPClientTransport(url, { requestInit, ...authOptions })
      : new SSEClientTransport(url, { requestInit, ...authOptions });
  let client: Client;
  try {
    client = await connectClient(transport, config, signal, options, setup);
  } catch (err) {
    await transport.close().catch(() => undefined);
    auth?.detach();
    const aborted = abortedError(name, 'connect', signal, []);
    if (aborted) throw aborted;
    const authFailure = auth?.failureOf(err);
    if (authFailure === 'no-oauth-metadata') {
      throw new ConnectError(
        name,
        'connect',
        `could not connect to ${safeUrl(raw)} (${label}): ${httpStatusText(401)} (it publishes no OAuth metadata, so mcpctl login would not help)`,
        [],
        { cause: err },
      );
    }
    const status = httpStatusOf(err);
    if (auth && (loginRequired || authFailure === 'login-required' || status === 401)) {
      throw new UnauthorizedConnectError(
        name,
        `${safeUrl(raw)} asks for an OAuth sign-in (mcpctl login ${name})`,
      );
    }
    const detail = scrubUrl(messageOf(err), raw);
    throw new ConnectError(
      name,
      'connect',
      `could not connect to ${safeUrl(raw)} (${label}): ${status === undefined ? '' : `${httpStatusText(status)}; `}${auth ? auth.scrub(detail) : detail}`,
      [],
      { cause: err },
    );
  }
  return {
    client,
    transport,
    pid: undefined,
    stderrTail: () => [],
    isFatalError: remoteErrorIsFatal,
    ...(auth
      ? {
          scrub: (text: string) => auth.scrub(text),
          onUnauthorized: (handler: () => void) => {
            onUnauthorized = handler;
            if (loginRequired) handler();
          },
        }
      : {}),
    close: async () => {
      auth?.detach();
      if (transport instanceof StreamableHTTPClientTransport) {
        // Politeness: let the server free its session. Bounded, and failures do not matter.
        await withTimeout(transport.terminateSession(), TERMINATE_SESSION_MS).catch(
          () => undefined,
        );
      }
      await client.close();
    },
  };
}

/** The HTTP status a remote transport error carries (the SDK keeps it out of the message). */
export function httpStatusOf(error: unknown): number | undefined {
  const code =
    error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  return typeof code === 'number' && code >= 100 && code <= 599 ? code : undefined;
}

/** `HTTP 401 …` with what to do about it, for a connect failure. */
export function httpStatusText(status: number): string {
  if (status === 401 || status === 403)
    return `HTTP ${status}, not authorised: check the credentials in the server's "headers"`;
  if (status === 404 || status === 405)
    return `HTTP ${status}: no MCP endpoint there; check the URL's path (often /mcp, or /sse for SSE)`;
  if (status >= 500) return `HTTP ${status}: the server failed; its own logs say why`;
  return `HTTP ${status}`;
}

/**
 * Which errors of a remote transport mean the connection is dead. The SDK reports
 * recoverable ones too (a dropped stream it reopens, a GET stream the server does not offer);
 * those must not cost a reconnect. A remote server's death is noticed when traffic fails.
 */
export function remoteErrorIsFatal(error: Error): boolean {
  // fetch() rejects with a TypeError when the server cannot be reached at all.
  if (error instanceof TypeError) return true;
  if (/Maximum reconnection attempts/.test(error.message)) return true;
  // 404 on a request: the server no longer knows our session.
  if (error instanceof StreamableHTTPError && error.code === 404) return true;
  // The event stream got an HTTP error status: EventSource gives up for good.
  if (error instanceof SseError && error.code !== undefined) return true;
  return false;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
