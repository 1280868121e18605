/**
 * Helpers for the e2e tests of the daemon's HTTP endpoint (issue #26): the built daemon started
 * with `--http 127.0.0.1:0` (the system picks a free port, so parallel tests never race for
 * one; the daemon logs the URL it bound), its token, and SDK client transports that send it.
 *
 * Guarantees: `startHttpDaemon` resolves only once the daemon answers on its socket and has
 * logged its URL; the token is read from the file the daemon made, as a user's `mcpctl token`
 * would print it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { DaemonProcess, TestEnv } from './harness.js';
import { until } from '../testing/until.js';

export interface HttpDaemon {
  readonly daemon: DaemonProcess;
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly token: string;
}

/** The URL an HTTP daemon logged (`http listening`), once it did. */
export function loggedUrl(daemon: DaemonProcess): string | undefined {
  for (const line of daemon.stderr().split('\n')) {
    if (!line.includes('http listening')) continue;
    try {
      const parsed = JSON.parse(line) as { url?: unknown };
      if (typeof parsed.url === 'string') return parsed.url;
    } catch {
      // A line being written.
    }
  }
  return undefined;
}

export function tokenFile(env: TestEnv): string {
  return path.join(env.home, '.mcpctl', 'http-token');
}

/**
 * `mcpctl daemon --http 127.0.0.1:0 …args` in `env` (workspace, debounce 50 ms, drain 0, as
 * `env.startDaemon`), with `vars` added to its environment; resolves with its URL and token
 * once it listens.
 */
export async function startHttpDaemon(
  env: TestEnv,
  args: readonly string[] = [],
  vars: Record<string, string> = {},
): Promise<HttpDaemon> {
  const daemon = env.spawnDaemon(
    [
      'daemon',
      '--workspace',
      env.workspace,
      '--debounce-ms',
      '50',
      '--drain-delay-ms',
      '0',
      '--http',
      '127.0.0.1:0',
      ...args,
    ],
    { env: vars },
  );
  const url = await until(
    'the daemon to log its HTTP url',
    () => {
      if (daemon.child.exitCode !== null || daemon.child.signalCode !== null)
        throw new Error(`daemon exited early: ${daemon.stderr()}`);
      return loggedUrl(daemon);
    },
    { timeoutMs: 20_000 },
  );
  const token = readFileSync(tokenFile(env), 'utf8').trim();
  return { daemon, url, token };
}

/** An SDK client transport to `url` (plus `query`) sending the bearer token. */
export function httpTransport(
  http: { readonly url: string; readonly token: string },
  opts: { query?: Record<string, string> } & StreamableHTTPClientTransportOptions = {},
): StreamableHTTPClientTransport {
  const { query, ...rest } = opts;
  const url = new URL(http.url);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  return new StreamableHTTPClientTransport(url, {
    ...rest,
    requestInit: {
      ...rest.requestInit,
      headers: { Authorization: `Bearer ${http.token}` },
    },
  });
}
