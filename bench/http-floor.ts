/**
 * The floor rows of the http figure (http.ts): what a call over loopback HTTP costs on this
 * machine with no mcpctl in it, beside what serve's own hop (a Unix socket) costs, measured in
 * the same run as the rows they bound.
 *
 * - `http`: a keep-alive node:http client POSTing a tools/call-sized body to a node:http
 *   server answering a fixed JSON body (http-floor-child.ts), one request after the other: the
 *   least any HTTP round trip costs here. Its parallel figure uses the HTTP row's agent.
 * - `unix`: the same body as a line to a Unix socket echo, one after the other: the hop serve
 *   makes to the daemon.
 * - `sdkClient`: the SDK client over Streamable HTTP (the HTTP row's client and fetch) calling a
 *   server that answers at once, the proxy load as for every row: what the client side of a
 *   call over HTTP costs, so the HTTP row minus this is the daemon's part.
 * - `gateway`: the same client through the least HTTP gateway there is (http-floor-child.ts)
 *   to the same stdio server the daemon runs: what HTTP in front of that server costs with
 *   nothing of mcpctl's, the floor of any HTTP row; the HTTP row minus this is mcpctl's code.
 *
 * Guarantees: each server is a process of its own carrying the figure's folder in its command
 * line, ended before the function returns; every answer is checked (status and body, or the
 * load's own check).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request, type Agent } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { nodeFetch } from './http-fetch.js';
import { benchEnv } from './peer/system.js';
import { measureCalls, percentile, type CallCounts, type ProxyRow } from './proxy/load.js';
import { round } from './stats.js';

const CHILD = fileURLToPath(new URL('./http-floor-child.js', import.meta.url));

/** Sequential round trips each floor's p50 is taken over (they are cheap: a few thousand). */
export const FLOOR_SEQUENTIAL = 3000;

export interface FloorRow {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** results.json's `http.floor`. */
export interface HttpFloor {
  readonly http: ProxyRow;
  readonly unix: FloorRow;
  readonly sdkClient: ProxyRow;
  readonly gateway: ProxyRow;
}

/** A tools/call as the SDK client sends it, for the bare rows' bodies. */
const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'echo', arguments: { n: 1 } },
});

interface Child {
  readonly process: ChildProcess;
  readonly port?: number;
  readonly path?: string;
}

function startChild(
  mode: 'http' | 'unix' | 'mcp' | 'gateway',
  dir: string,
  stdioServer: readonly string[] = [],
): Promise<Child> {
  const child = spawn(process.execPath, [CHILD, mode, dir, ...stdioServer], {
    env: benchEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line)
        resolve({ process: child, ...(JSON.parse(line) as { port?: number; path?: string }) });
    });
    child.once('exit', (code) => reject(new Error(`the ${mode} floor server exited (${code})`)));
  });
}

async function stopChild(c: Child): Promise<void> {
  if (c.process.exitCode !== null || c.process.signalCode !== null) return;
  const exited = new Promise((resolve) => c.process.once('exit', resolve));
  c.process.kill('SIGTERM');
  await exited;
}

/** p50 and p99 of `count` timed runs of `one` after `warmup` untimed ones. */
async function timed(
  one: () => Promise<void>,
  warmup: number,
  count: number,
): Promise<{ row: FloorRow; ms: number }> {
  for (let i = 0; i < warmup; i++) await one();
  const latencies: number[] = [];
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await one();
    latencies.push(performance.now() - t);
  }
  const ms = performance.now() - start;
  latencies.sort((a, b) => a - b);
  return {
    row: { p50Ms: round(percentile(latencies, 50), 3), p99Ms: round(percentile(latencies, 99), 3) },
    ms,
  };
}

async function httpFloor(dir: string, agent: Agent, counts: CallCounts): Promise<ProxyRow> {
  const server = await startChild('http', dir);
  try {
    const one = () =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: server.port,
            path: '/mcp',
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(BODY)),
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.once('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              if (res.statusCode === 200 && text.includes('"result"')) resolve();
              else reject(new Error(`the http floor answered ${res.statusCode}: ${text}`));
            });
          },
        );
        req.once('error', reject);
        req.end(BODY);
      });
    const { row, ms } = await timed(one, counts.warmup, FLOOR_SEQUENTIAL);
    const parStart = performance.now();
    await Promise.all(Array.from({ length: counts.parallel }, one));
    const parMs = performance.now() - parStart;
    return {
      ...row,
      seqPerS: Math.round((FLOOR_SEQUENTIAL * 1000) / ms),
      parPerS: Math.round((counts.parallel * 1000) / parMs),
    };
  } finally {
    await stopChild(server);
  }
}

async function unixFloor(dir: string, counts: CallCounts): Promise<FloorRow> {
  const server = await startChild('unix', dir);
  const socket = connect(server.path ?? '');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    let waiting: { resolve: () => void; reject: (err: Error) => void } | undefined;
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      buffered += text;
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line === BODY) waiting?.resolve();
      else waiting?.reject(new Error(`the unix floor echoed ${line.slice(0, 200)}`));
    });
    const one = () =>
      new Promise<void>((resolve, reject) => {
        waiting = { resolve, reject };
        socket.write(`${BODY}\n`);
      });
    return (await timed(one, counts.warmup, FLOOR_SEQUENTIAL)).row;
  } finally {
    socket.destroy();
    await stopChild(server);
  }
}

/** The SDK client's calls over HTTP to a floor server (`mcp`, or `gateway` to `stdioServer`). */
async function sdkClientFloor(
  dir: string,
  agent: Agent,
  counts: CallCounts,
  mode: 'mcp' | 'gateway',
  stdioServer: readonly string[] = [],
): Promise<ProxyRow> {
  const server = await startChild(mode, dir, stdioServer);
  const client = new Client({ name: 'mcpctl-http-bench', version: '0.0.0' }, { capabilities: {} });
  try {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`), {
        fetch: nodeFetch(agent),
      }),
    );
    return (await measureCalls(client, 'echo', 'echo', counts)).row;
  } finally {
    await client.close().catch(() => undefined);
    await stopChild(server);
  }
}

/**
 * The four floors, one after the other; `dir` is the figure's temporary folder, `stdioServer`
 * the script (and arguments) of the server the daemon runs, for the gateway floor.
 */
export async function httpFloors(
  dir: string,
  agent: Agent,
  counts: CallCounts,
  stdioServer: readonly string[],
): Promise<HttpFloor> {
  const http = await httpFloor(dir, agent, counts);
  const unix = await unixFloor(dir, counts);
  const sdkClient = await sdkClientFloor(dir, agent, counts, 'mcp');
  const gateway = await sdkClientFloor(dir, agent, counts, 'gateway', stdioServer);
  return { http, unix, sdkClient, gateway };
}
