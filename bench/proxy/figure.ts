/**
 * The proxy figure (issue 14, "Speed"): what a tool call costs through mcpctl, beside the
 * same call made straight at the server and through mcp-hub 4.2.1, measured one after
 * another in one run on this machine, with the same load (load.ts) and the same server: the
 * SDK-free fast stdio fixture with an echo tool.
 *
 * - direct: the client spawns the fixture itself (StdioClientTransport).
 * - mcpctl: the client spawns the built `mcpctl serve` (as an agent does), which starts a
 *   daemon on a temporary socket; the fixture is configured in a temporary HOME's
 *   ~/.qwen/settings.json (user scope, never gated). Started and stopped as bench:peer does.
 * - mcp-hub: started as bench:peer does (peer/hub.ts), the client over SSE (all it offers).
 *
 * Where the time goes (2026-12-01, the gateway in the daemon): direct is one hop (client ↔
 * fixture over stdio). Through mcpctl a call crosses two more processes: client → serve over
 * stdio, serve passes each line to the daemon's socket after a scan of its top-level keys
 * (no parse; cli/serve/keeper.ts), the daemon's gateway routes the tools/call (its fast path:
 * no SDK schema checks) through session and pool to the fixture's stdio as a request of the
 * pool's own, and the answer goes back the same way. Warm,
 * per call: serve 90 µs of CPU, the daemon 155 µs, the fixture 45 µs. A hop (a write waking
 * another process, its epoll_wait and read) costs 20–40 µs of CPU on this machine; a Node
 * process that only copies bytes adds 0.05–0.13 ms to a call, which is what serve costs, and
 * the daemon's ~55 µs beyond that is routing (JSON, id mapping, abort signal and timer per
 * request, promise layers). Steady state comes late (load.ts): every row is warmed up with the
 * same 5000 calls, and the first calls are reported apart (early).
 *
 * Guarantees: every process a row starts is ended before the next row starts (checked from
 * /proc by the row folder's path, which every one of them carries in its command line), and
 * every folder is removed; a row that fails ends what it started before the error goes on.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { machine, type MachineDetail } from '../machine.js';
import { BASE_TOOL, fleet, type Fleet } from '../peer/fleet.js';
import { mcpHub } from '../peer/hub.js';
import { MCPCTL, mcpctlAt, mcpctlEnv } from '../peer/mcpctl.js';
import { benchEnv, qualified, sleep, type RunDir, type SystemKind } from '../peer/system.js';
import { killAll, processesMentioning } from '../processes.js';
import { round } from '../stats.js';
import { benchDir } from '../temp.js';
import {
  countsFrom,
  earlyP50,
  measureCalls,
  type CallCounts,
  type LoadDetail,
  type ProxyRow,
} from './load.js';

export const PROXY_DIR_PREFIX = 'mcpctl-bench-proxy-';

/** The goals for mcpctl, against direct and mcp-hub in the same run. */
export const GOAL_P50_OVER_DIRECT_MS = 0.3;
export const GOAL_PAR_OF_DIRECT = 0.25;

export interface ProxyRatios {
  /** mcpctl.p50Ms − direct.p50Ms. */
  readonly mcpctlP50OverDirectMs: number;
  /** mcpctl.parPerS / direct.parPerS. */
  readonly mcpctlParOfDirect: number;
  /** mcpctl.p50Ms / mcpHub.p50Ms. */
  readonly mcpctlP50OfHub: number;
  /** mcpctl.parPerS / mcpHub.parPerS. */
  readonly mcpctlParOfHub: number;
}

/** results.json's `proxy`. */
export interface ProxyFigure {
  readonly date: string;
  readonly machine: MachineDetail;
  readonly calls: CallCounts;
  readonly direct: ProxyRow;
  readonly mcpctl: ProxyRow;
  readonly mcpHub: ProxyRow;
  readonly ratios: ProxyRatios;
  readonly goal: { readonly met: boolean; readonly misses: readonly string[] };
  /**
   * p50 ms of each row's first calls (load.ts EARLY_CALLS), before the steady state the goal
   * is judged on: what a session that makes a few calls sees.
   */
  readonly early: Readonly<Record<RowKey, number>> & {
    readonly mcpctlP50OverDirectMs: number;
    /**
     * mcpctl's early p50 for a second agent session on the daemon the row warmed up: a fresh
     * serve and client, a warm daemon and server (an agent started while mcpctl runs).
     */
    readonly mcpctlNewSession: number;
  };
}

export type RowKey = 'direct' | 'mcpctl' | 'mcpHub';

/** Printed only. */
export interface ProxyDetail {
  /** See ProxyFigure.early.mcpctlNewSession. */
  readonly mcpctlNewSessionEarlyP50Ms: number;
  /** From spawning that second serve to its answer to initialize. */
  readonly mcpctlNewSessionStartMs: number;
  readonly rows: Readonly<Record<RowKey, LoadDetail & { readonly startMs: number }>>;
  readonly seconds: number;
}

/** A client connected to one system, and how to end it and everything it started. */
interface Opened {
  readonly client: Client;
  /** The tool's name as this client sees it. */
  readonly name: string;
  close(): Promise<void>;
}

async function openDirect(f: Fleet): Promise<Opened> {
  // Exactly the entry the two proxies are given.
  const entry = f.config(0).mcpServers[f.names[0] ?? ''];
  if (!entry) throw new Error('the fleet has no server');
  const client = new Client({ name: 'mcpctl-proxy-bench', version: '0.0.0' }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({
      command: entry.command,
      args: [...entry.args],
      env: benchEnv(),
      stderr: 'ignore',
    }),
  );
  return { client, name: BASE_TOOL, close: () => client.close() };
}

async function openThrough(kind: SystemKind, f: Fleet, dir: RunDir): Promise<Opened> {
  const sut = await kind.start(f, dir, f.config(0));
  return {
    client: sut.probe.client,
    name: qualified(f.names[0] ?? '', BASE_TOOL),
    close: () => sut.close(),
  };
}

/**
 * A second agent session on the daemon mcpctl's row started: another `mcpctl serve` for the
 * same workspace, whose early p50 is measured once the tool is listed.
 */
async function newSessionEarlyP50(
  f: Fleet,
  dir: RunDir,
): Promise<{ p50Ms: number; startMs: number }> {
  const started = performance.now();
  const client = new Client(
    { name: 'mcpctl-proxy-bench-2', version: '0.0.0' },
    { capabilities: {} },
  );
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MCPCTL, 'serve', '--workspace', dir.workspace],
        env: mcpctlEnv(dir),
        cwd: dir.workspace,
        stderr: 'ignore',
      }),
    );
    const startMs = round(performance.now() - started, 0);
    const name = qualified(f.names[0] ?? '', BASE_TOOL);
    const deadline = performance.now() + 30_000;
    while (!(await client.listTools()).tools.some((t) => t.name === name)) {
      if (performance.now() > deadline) throw new Error(`a second serve never listed ${name}`);
      await sleep(50);
    }
    return { p50Ms: await earlyP50(client, name, BASE_TOOL), startMs };
  } finally {
    await client.close();
  }
}

/** Waits until nothing mentioning `root` runs; kills what is left after 10 s and says so. */
async function ended(root: string, log: (line: string) => void): Promise<void> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const left = processesMentioning(root);
    if (left.length === 0) return;
    if (performance.now() > deadline) {
      log(`    processes left behind, killing them: ${left.join(' ')}`);
      killAll(left);
      return;
    }
    await sleep(50);
  }
}

async function measureRow(
  key: RowKey,
  log: (line: string) => void,
  counts: CallCounts,
): Promise<{
  row: ProxyRow;
  detail: LoadDetail & { startMs: number };
  newSession?: { p50Ms: number; startMs: number };
}> {
  const dir = benchDir(`proxy-${key}`);
  try {
    const f = fleet(1, dir.root);
    const started = performance.now();
    const opened =
      key === 'direct'
        ? await openDirect(f)
        : await openThrough(key === 'mcpctl' ? mcpctlAt() : mcpHub, f, dir);
    const startMs = round(performance.now() - started, 0);
    try {
      const { row, detail } = await measureCalls(opened.client, opened.name, BASE_TOOL, counts);
      log(
        `    ${key}: p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, ${row.seqPerS}/s sequential, ${row.parPerS}/s parallel`,
      );
      const newSession = key === 'mcpctl' ? await newSessionEarlyP50(f, dir) : undefined;
      return {
        row,
        detail: { ...detail, startMs },
        ...(newSession === undefined ? {} : { newSession }),
      };
    } finally {
      await opened.close();
    }
  } finally {
    await ended(dir.root, log);
    dir.remove();
  }
}

function goal(d: ProxyRow, m: ProxyRow, h: ProxyRow): ProxyFigure['goal'] {
  const misses: string[] = [];
  if (!(m.p50Ms - d.p50Ms <= GOAL_P50_OVER_DIRECT_MS))
    misses.push(`p50 ${round(m.p50Ms - d.p50Ms, 3)} ms over direct (≤ ${GOAL_P50_OVER_DIRECT_MS})`);
  if (!(m.parPerS >= GOAL_PAR_OF_DIRECT * d.parPerS))
    misses.push(`parallel ${round(m.parPerS / d.parPerS, 2)} × direct (≥ ${GOAL_PAR_OF_DIRECT})`);
  if (!(m.p50Ms < h.p50Ms && m.seqPerS > h.seqPerS && m.parPerS > h.parPerS))
    misses.push('not ahead of mcp-hub on every figure');
  return { met: misses.length === 0, misses };
}

/** Measures the three rows, one after another (never at once: each would load the other). */
export async function proxyFigure(
  log: (line: string) => void,
  counts: CallCounts = countsFrom(process.env.PROXY_CALLS),
): Promise<{ figure: ProxyFigure; detail: ProxyDetail }> {
  const began = performance.now();
  const m = machine();
  const date = new Date().toISOString();
  const direct = await measureRow('direct', log, counts);
  const mcpctl = await measureRow('mcpctl', log, counts);
  const hub = await measureRow('mcpHub', log, counts);
  const d = direct.row;
  const c = mcpctl.row;
  const h = hub.row;
  return {
    figure: {
      date,
      machine: m,
      calls: counts,
      direct: d,
      mcpctl: c,
      mcpHub: h,
      ratios: {
        mcpctlP50OverDirectMs: round(c.p50Ms - d.p50Ms, 3),
        mcpctlParOfDirect: round(c.parPerS / d.parPerS, 3),
        mcpctlP50OfHub: round(c.p50Ms / h.p50Ms, 3),
        mcpctlParOfHub: round(c.parPerS / h.parPerS, 3),
      },
      goal: goal(d, c, h),
      early: {
        direct: direct.detail.earlyP50Ms,
        mcpctl: mcpctl.detail.earlyP50Ms,
        mcpHub: hub.detail.earlyP50Ms,
        mcpctlP50OverDirectMs: round(mcpctl.detail.earlyP50Ms - direct.detail.earlyP50Ms, 3),
        mcpctlNewSession: mcpctl.newSession?.p50Ms ?? NaN,
      },
    },
    detail: {
      mcpctlNewSessionEarlyP50Ms: mcpctl.newSession?.p50Ms ?? NaN,
      mcpctlNewSessionStartMs: mcpctl.newSession?.startMs ?? NaN,
      rows: { direct: direct.detail, mcpctl: mcpctl.detail, mcpHub: hub.detail },
      seconds: round((performance.now() - began) / 1000, 1),
    },
  };
}
