/**
 * The http figure (issue #26): agent sessions through `mcpctl serve` against the same number
 * over the daemon's Streamable HTTP endpoint, on one daemon (`mcpctl daemon --http`) with one
 * server (the fast stdio fixture's echo), one row after the other:
 *
 * - processes: with HTTP_SESSIONS sessions open, the mcpctl processes besides the daemon (one
 *   `serve` per session, none over HTTP: the goal) and their RSS, and the daemon's RSS;
 * - per call: the load of the proxy figure (proxy/load.ts: warm-up, sequential p50, parallel
 *   calls per second) on one of those sessions while all are open, beside a direct connection
 *   to the fixture. Goal: HTTP's p50 within 1.5× serve's. Both sides use the SDK client;
 *   beneath it, HTTP's figure uses a keep-alive `node:http` client (http-fetch.ts), and a
 *   second session's calls with Node's fetch (the SDK's default) are measured beside it.
 * - floors (http-floor.ts), before the daemon starts: a bare node:http round trip, a bare Unix
 *   socket echo, the SDK client against a server that answers at once, and the SDK client
 *   through the least HTTP gateway there is to the same stdio server, so the report shows what
 *   of HTTP's p50 is HTTP's and what is mcpctl's.
 *
 * Guarantees: every process the figure starts carries its temporary folder's path in its
 * command line and is ended before it returns (what is left is killed and said); the folder
 * is removed; every answer is checked (load.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter, setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { nodeFetch } from './http-fetch.js';
import { httpFloors, type HttpFloor } from './http-floor.js';
import { machine, type MachineDetail } from './machine.js';
import { BASE_TOOL, fleet } from './peer/fleet.js';
import { MCPCTL, mcpctlEnv } from './peer/mcpctl.js';
import { benchEnv, qualified, sleep } from './peer/system.js';
import { killAll, processesMentioning, rssMb } from './processes.js';
import { countsFrom, measureCalls, type CallCounts, type ProxyRow } from './proxy/load.js';
import { round } from './stats.js';
import { benchDir, type BenchDir } from './temp.js';

/** Agent sessions open at once in each row (the issue's figure). */
export const HTTP_SESSIONS = 20;
export const GOAL_HTTP_P50_OF_SERVE = 1.5;
/**
 * Connections each agent session's HTTP client keeps to the server (every HTTP row and floor
 * alike; the SDK's GET stream holds one of them). A request in flight holds a connection
 * (HTTP/1.1), so this bounds the calls on the wire at once; unbounded, 500 parallel calls open
 * 500 connections and the parallel figure measures TCP handshakes.
 */
export const HTTP_MAX_SOCKETS = 16;

export interface SessionsRow {
  /** mcpctl processes besides the daemon while the sessions are open. */
  readonly extraProcesses: number;
  readonly extraRssMb: number;
  readonly daemonRssMb: number;
  readonly calls: ProxyRow;
}

/** results.json's `http`. */
export interface HttpFigure {
  readonly date: string;
  readonly machine: MachineDetail;
  readonly sessions: number;
  readonly calls: CallCounts;
  readonly direct: ProxyRow;
  readonly serve: SessionsRow;
  /** Over HTTP with the SDK client's default HTTP client beneath (Node's fetch, undici). */
  readonly httpFetch: ProxyRow;
  readonly http: SessionsRow;
  /** The same calls' floors on this machine, no mcpctl in them (http-floor.ts). */
  readonly floor: HttpFloor;
  readonly ratios: {
    readonly httpP50OfServe: number;
    readonly httpParOfServe: number;
    /** The bare HTTP round trip's p50 ÷ serve's whole call's: over 1.5, the goal is below HTTP. */
    readonly floorP50OfServe: number;
    /**
     * The bare gateway's p50 (the SDK client through the least HTTP gateway to the same server)
     * ÷ serve's: the goal's floor on this machine; what HTTP can be at best against serve.
     */
    readonly gatewayP50OfServe: number;
  };
  readonly goal: { readonly met: boolean; readonly misses: readonly string[] };
}

interface Daemon {
  readonly child: ChildProcess;
  readonly url: string;
  readonly token: string;
}

async function startDaemon(dir: BenchDir): Promise<Daemon> {
  const child = spawn(
    process.execPath,
    [MCPCTL, 'daemon', '--workspace', dir.workspace, '--http', '127.0.0.1:0'],
    { env: mcpctlEnv(dir), stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const deadline = performance.now() + 30_000;
  for (;;) {
    const url = /"url":"(http:[^"]+)"/.exec(stderr)?.[1];
    if (url) {
      const token = readFileSync(join(dir.home, '.mcpctl', 'http-token'), 'utf8').trim();
      return { child, url, token };
    }
    if (child.exitCode !== null || performance.now() > deadline)
      throw new Error(`the daemon did not start: ${stderr.slice(-2000)}`);
    await sleep(50);
  }
}

async function stopDaemon(d: Daemon): Promise<void> {
  if (d.child.exitCode !== null) return;
  const exited = new Promise((resolve) => d.child.once('exit', resolve));
  d.child.kill('SIGTERM');
  await exited;
}

/** A client whose tool is listed, over `transport`. */
async function connected(
  transport: StdioClientTransport | StreamableHTTPClientTransport,
  name: string,
): Promise<Client> {
  const client = new Client({ name: 'mcpctl-http-bench', version: '0.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const deadline = performance.now() + 30_000;
  while (!(await client.listTools()).tools.some((t) => t.name === name)) {
    if (performance.now() > deadline) throw new Error(`${name} was never listed`);
    await sleep(50);
  }
  return client;
}

/** mcpctl processes of the run other than the daemon, with their RSS. */
function extraProcesses(dir: BenchDir, daemon: number): { count: number; rssMb: number } {
  const pids = processesMentioning(dir.root).filter((pid) => {
    if (pid === daemon) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(MCPCTL);
    } catch {
      return false;
    }
  });
  return {
    count: pids.length,
    rssMb: round(
      pids.reduce((s, p) => s + rssMb(p), 0),
      1,
    ),
  };
}

/**
 * HTTP_SESSIONS sessions (session i over `transport(i)`); the calls measured on the first
 * `measured` of them, one after the other: the row's on the first, `more` on the others.
 */
async function sessionsRow(
  dir: BenchDir,
  daemon: Daemon,
  transport: (i: number) => StdioClientTransport | StreamableHTTPClientTransport,
  name: string,
  counts: CallCounts,
  measured = 1,
): Promise<{ row: SessionsRow; more: ProxyRow[] }> {
  const clients: Client[] = [];
  try {
    for (let i = 0; i < HTTP_SESSIONS; i++) clients.push(await connected(transport(i), name));
    const pid = daemon.child.pid ?? -1;
    const extra = extraProcesses(dir, pid);
    const daemonRssMb = round(rssMb(pid), 1);
    const rows: ProxyRow[] = [];
    for (const client of clients.slice(0, measured))
      rows.push((await measureCalls(client, name, BASE_TOOL, counts)).row);
    const [calls, ...more] = rows;
    if (!calls) throw new Error('no session');
    return {
      row: { extraProcesses: extra.count, extraRssMb: extra.rssMb, daemonRssMb, calls },
      more,
    };
  } finally {
    for (const c of clients) await c.close().catch(() => undefined);
  }
}

export async function httpFigure(
  log: (line: string) => void,
  counts: CallCounts = countsFrom(process.env.PROXY_CALLS),
): Promise<HttpFigure> {
  const date = new Date().toISOString();
  const dir = benchDir('http');
  // The parallel figure has every call in flight at once under one signal and one pipe (the
  // SDK's), and Node's fetch keeps its listener on that signal until a GC: hundreds of
  // listeners are the load, not a leak, and Node's warnings would bury the figure's lines.
  const listenersBefore = EventEmitter.defaultMaxListeners;
  setMaxListeners(0);
  let daemon: Daemon | undefined;
  // One connection pool per agent session, as each agent (a process of its own) has.
  const agents: Agent[] = [];
  const newAgent = () => {
    const agent = new Agent({ keepAlive: true, maxSockets: HTTP_MAX_SOCKETS });
    agents.push(agent);
    return agent;
  };
  try {
    const f = fleet(1, dir.root);
    dir.write(dir.userSettings, f.config(0));
    const entry = f.config(0).mcpServers[f.names[0] ?? ''];
    if (!entry) throw new Error('the fleet has no server');
    const name = qualified(f.names[0] ?? '', BASE_TOOL);

    const direct = await connected(
      new StdioClientTransport({
        command: entry.command,
        args: [...entry.args],
        env: benchEnv(),
        stderr: 'ignore',
      }),
      BASE_TOOL,
    );
    let directRow: ProxyRow;
    try {
      directRow = (await measureCalls(direct, BASE_TOOL, BASE_TOOL, counts)).row;
    } finally {
      await direct.close();
    }
    log(`    direct: p50 ${directRow.p50Ms} ms, ${directRow.parPerS}/s parallel`);
    // The gateway floor runs the same server, without the pid file the daemon's copy writes.
    const server = entry.args.filter((a) => !a.startsWith('--pid-file='));
    const floor = await httpFloors(dir.root, newAgent(), counts, server);
    log(
      `    floors: bare HTTP p50 ${floor.http.p50Ms} ms (${floor.http.parPerS}/s parallel), Unix socket echo p50 ${floor.unix.p50Ms} ms, SDK client over HTTP to a bare server p50 ${floor.sdkClient.p50Ms} ms (${floor.sdkClient.parPerS}/s parallel), through a bare HTTP gateway to the server p50 ${floor.gateway.p50Ms} ms (${floor.gateway.parPerS}/s parallel)`,
    );

    const d = await startDaemon(dir);
    daemon = d;
    const { row: serve } = await sessionsRow(
      dir,
      d,
      () =>
        new StdioClientTransport({
          command: process.execPath,
          args: [MCPCTL, 'serve', '--workspace', dir.workspace],
          env: mcpctlEnv(dir),
          cwd: dir.workspace,
          stderr: 'ignore',
        }),
      name,
      counts,
    );
    log(
      `    serve: ${serve.extraProcesses} extra processes (${serve.extraRssMb} MiB), p50 ${serve.calls.p50Ms} ms, ${serve.calls.parPerS}/s parallel`,
    );
    // Session 0 (the figure) over node:http with keep-alive, session 1 over Node's fetch.
    const {
      row: http,
      more: [httpFetch],
    } = await sessionsRow(
      dir,
      d,
      (i) =>
        new StreamableHTTPClientTransport(new URL(d.url), {
          requestInit: { headers: { Authorization: `Bearer ${d.token}` } },
          ...(i === 1 ? {} : { fetch: nodeFetch(newAgent()) }),
        }),
      name,
      counts,
      2,
    );
    if (!httpFetch) throw new Error('no fetch session');
    log(
      `    http: ${http.extraProcesses} extra processes (${http.extraRssMb} MiB), p50 ${http.calls.p50Ms} ms, ${http.calls.parPerS}/s parallel; with Node's fetch p50 ${httpFetch.p50Ms} ms, ${httpFetch.parPerS}/s parallel`,
    );
    const httpP50OfServe = round(http.calls.p50Ms / serve.calls.p50Ms, 3);
    const misses: string[] = [];
    if (http.extraProcesses !== 0) misses.push(`${http.extraProcesses} extra processes over HTTP`);
    if (!(httpP50OfServe <= GOAL_HTTP_P50_OF_SERVE))
      misses.push(`p50 ${httpP50OfServe} × serve's (≤ ${GOAL_HTTP_P50_OF_SERVE})`);
    return {
      date,
      machine: machine(),
      sessions: HTTP_SESSIONS,
      calls: counts,
      direct: directRow,
      serve,
      http,
      httpFetch,
      floor,
      ratios: {
        httpP50OfServe,
        floorP50OfServe: round(floor.http.p50Ms / serve.calls.p50Ms, 3),
        gatewayP50OfServe: round(floor.gateway.p50Ms / serve.calls.p50Ms, 3),
        httpParOfServe: round(http.calls.parPerS / serve.calls.parPerS, 3),
      },
      goal: { met: misses.length === 0, misses },
    };
  } finally {
    setMaxListeners(listenersBefore);
    for (const agent of agents) agent.destroy();
    if (daemon) await stopDaemon(daemon);
    const left = processesMentioning(dir.root);
    if (left.length > 0) {
      log(`    processes left behind, killing them: ${left.join(' ')}`);
      killAll(left);
    }
    dir.remove();
  }
}

/** The figure for a human (the lines `npm run bench` prints). */
export function httpLines(h: HttpFigure): string[] {
  const mark = (ok: boolean) => (ok ? '✓' : '✗');
  const line = (label: string, r: SessionsRow) =>
    `    ${label.padEnd(22)}${String(r.extraProcesses).padStart(8)}${r.extraRssMb.toFixed(1).padStart(11)}${r.daemonRssMb.toFixed(1).padStart(11)}${r.calls.p50Ms.toFixed(3).padStart(11)}${String(r.calls.parPerS).padStart(11)}`;
  return [
    `7 http: ${h.sessions} agent sessions through serve and over HTTP, one daemon; echo calls as in 6`,
    `    ${''.padEnd(22)}${'extra'.padStart(8)}${'their MiB'.padStart(11)}${'daemon MiB'.padStart(11)}${'p50 ms'.padStart(11)}${'par/s'.padStart(11)}`,
    line('mcpctl serve', h.serve),
    line('HTTP', h.http),
    `    ${"HTTP, Node's fetch".padEnd(22)}${''.padStart(30)}${h.httpFetch.p50Ms.toFixed(3).padStart(11)}${String(h.httpFetch.parPerS).padStart(11)}`,
    `    ${'bare HTTP (no mcpctl)'.padEnd(22)}${''.padStart(30)}${h.floor.http.p50Ms.toFixed(3).padStart(11)}${String(h.floor.http.parPerS).padStart(11)}`,
    `    ${'bare Unix socket echo'.padEnd(22)}${''.padStart(30)}${h.floor.unix.p50Ms.toFixed(3).padStart(11)}`,
    `    ${'SDK client, bare srv'.padEnd(22)}${''.padStart(30)}${h.floor.sdkClient.p50Ms.toFixed(3).padStart(11)}${String(h.floor.sdkClient.parPerS).padStart(11)}`,
    `    ${'bare HTTP gateway'.padEnd(22)}${''.padStart(30)}${h.floor.gateway.p50Ms.toFixed(3).padStart(11)}${String(h.floor.gateway.parPerS).padStart(11)}`,
    `    direct p50 ${h.direct.p50Ms} ms, ${h.direct.parPerS}/s parallel; HTTP ÷ serve: p50 ${h.ratios.httpP50OfServe} (goal ≤ ${GOAL_HTTP_P50_OF_SERVE} ${mark(h.ratios.httpP50OfServe <= GOAL_HTTP_P50_OF_SERVE)}), par/s ${h.ratios.httpParOfServe}; bare HTTP ÷ serve: p50 ${h.ratios.floorP50OfServe}; bare gateway ÷ serve: p50 ${h.ratios.gatewayP50OfServe}, HTTP ÷ bare gateway ${round(h.http.calls.p50Ms / h.floor.gateway.p50Ms, 3)}; extra processes over HTTP ${h.http.extraProcesses} (goal 0 ${mark(h.http.extraProcesses === 0)}); goal ${h.goal.met ? 'met' : `missed: ${h.goal.misses.join('; ')}`}`,
  ];
}
