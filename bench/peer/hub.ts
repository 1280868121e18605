/**
 * mcp-hub (4.2.1, the dev dependency) as a system under test: `mcp-hub --port P --config FILE
 * --watch`, its MCP endpoint reached over SSE, its REST API for server status.
 *
 * What its bundled source (node_modules/mcp-hub/dist/cli.js) does, which this relies on:
 * - `GET /mcp` is the SDK's SSEServerTransport (messages POSTed to `/messages?sessionId=`);
 *   there is no streamable HTTP endpoint, so the client is the SDK's SSEClientTransport.
 * - Tools are listed as `<server with [^a-zA-Z0-9] → _>__<tool>`; list_changed is sent to every
 *   client after a config change has been handled.
 * - The config watcher is chokidar with `awaitWriteFinish: { stabilityThreshold: 200,
 *   pollInterval: 100 }`: a change is acted on once the file's size has been stable for 200 ms
 *   (checked every 100 ms). A modified server is disconnected, then connected again.
 * - `GET /api/servers` lists `{ name, status, … }`; status is set by connect/disconnect only: a
 *   stdio server that exits only clears its uptime (client.onclose), the status stays.
 * - At start it loads a marketplace catalog from ~/.mcp-hub/cache/registry.json, fetching it
 *   from the internet when that is missing or older than an hour. The bench seeds a fresh one
 *   in the run's HOME, so mcp-hub never goes out; loopback.ts keeps its listener on 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { BASE_TOOL, writePretty, type Fleet } from './fleet.js';
import { ToolProbe } from './probe.js';
import {
  benchEnv,
  qualified,
  sleep,
  type ReportedStatus,
  type RunDir,
  type SystemKind,
  type SystemUnderTest,
} from './system.js';
import { until } from '../../testing/until.js';

const HUB_CLI = createRequire(import.meta.url).resolve('mcp-hub');
const LOOPBACK = pathToFileURL(fileURLToPath(new URL('./loopback.js', import.meta.url))).href;
const START_TIMEOUT_MS = 180_000;

/** mcp-hub's stdout and stderr: its JSON log lines (debug level included, ms timestamps). */
export function hubLogOf(dir: RunDir): string {
  return join(dir.root, 'mcp-hub.log');
}

interface HubServer {
  readonly name: string;
  readonly status: string;
  readonly error?: string | null;
}

/** A free TCP port on 127.0.0.1 (the kernel's pick; freed again before mcp-hub takes it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** A marketplace cache mcp-hub takes as fresh: a non-empty catalog fetched just now. */
function seedMarketplace(home: string): void {
  const dir = join(home, '.mcp-hub', 'cache');
  mkdirSync(dir, { recursive: true });
  const now = Date.now();
  writeFileSync(
    join(dir, 'registry.json'),
    JSON.stringify({
      registry: {
        version: 'bench',
        generatedAt: now,
        totalServers: 1,
        servers: [{ id: 'bench-none', name: 'bench-none', description: 'seeded by the bench' }],
      },
      lastFetchedAt: now,
      serverDocumentation: {},
    }),
  );
}

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const res = await fetch(url);
    return res.ok ? ((await res.json()) as T) : undefined;
  } catch {
    return undefined; // Not listening yet.
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export const mcpHub: SystemKind = {
  key: 'mcpHub',
  label: 'mcp-hub 4.2.1',
  async start(f: Fleet, dir: RunDir, initial: unknown): Promise<SystemUnderTest> {
    const configFile = join(dir.root, 'mcp-hub.json');
    writePretty(configFile, initial);
    seedMarketplace(dir.home);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const log = openSync(hubLogOf(dir), 'a');
    let child: ChildProcess;
    try {
      child = spawn(
        process.execPath,
        ['--import', LOOPBACK, HUB_CLI, '--port', String(port), '--config', configFile, '--watch'],
        {
          // Its own group: if it will not stop, the group (it and its servers) is killed at once.
          detached: true,
          stdio: ['ignore', log, log],
          cwd: dir.workspace,
          env: {
            ...benchEnv(),
            HOME: dir.home,
            XDG_DATA_HOME: join(dir.home, '.local', 'share'),
            XDG_STATE_HOME: join(dir.home, '.local', 'state'),
            XDG_CONFIG_HOME: join(dir.home, '.config'),
          },
        },
      );
    } finally {
      closeSync(log);
    }
    const stop = async (): Promise<void> => {
      if (child.pid === undefined) return;
      child.kill('SIGTERM'); // mcp-hub's graceful shutdown disconnects every server.
      const done = await Promise.race([exited(child).then(() => true), sleep(15_000)]);
      if (!done) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
        await exited(child);
      }
    };

    let client: Client | undefined;
    try {
      // Ready, and every configured server connected (they start in parallel).
      // A hub that exited ends the wait at once (a throw would only count as "not yet").
      const started = await until(
        'mcp-hub to report every server connected',
        async () => {
          if (child.exitCode !== null) return 'exited';
          const h = await getJson<{ state?: string; servers?: HubServer[] }>(`${base}/api/health`);
          const connected = h?.servers?.filter((s) => s.status === 'connected').length ?? 0;
          return h?.state === 'ready' && connected >= f.names.length ? 'ready' : undefined;
        },
        { timeoutMs: START_TIMEOUT_MS, intervalMs: 100 },
      );
      if (started === 'exited') throw new Error(`mcp-hub exited (${child.exitCode})`);
      client = new Client({ name: 'mcpctl-peer-bench', version: '0.0.0' }, { capabilities: {} });
      await client.connect(new SSEClientTransport(new URL(`${base}/mcp`)));
      const probe = new ToolProbe(client);
      const all = f.names.map((n) => qualified(n, BASE_TOOL));
      await until(
        'mcp-hub to list every server tool',
        async () => {
          const s = await probe.sample();
          return all.every((t) => s.tools.has(t)) ? true : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      const connectedClient = client;
      return {
        configFile,
        probe,
        async status(server: string): Promise<ReportedStatus> {
          const body = await getJson<{ servers?: HubServer[] }>(`${base}/api/servers`);
          const s = body?.servers?.find((x) => x.name === server);
          if (!s) return { connected: false, text: 'not listed by /api/servers' };
          const error = s.error ? `, error "${s.error}"` : '';
          return { connected: s.status === 'connected', text: `status "${s.status}"${error}` };
        },
        async close() {
          await connectedClient.close().catch(() => undefined);
          await stop();
        },
      };
    } catch (err) {
      await client?.close().catch(() => undefined);
      await stop();
      throw err;
    }
  },
};
