/**
 * The lazy figure (issue #34): what start on demand and stop when idle save an agent.
 *
 * - list: 30 configured stdio servers (the e2e fixture, two tools each). A new agent's
 *   `mcpctl serve` connect until its tool list is complete (60 tools): through a daemon whose
 *   catalogs are warm (servers Idle: nothing starts) vs a daemon at `--idle-stop 0`, which
 *   starts all 30 for the agent's session, as every agent and peer gateway does. Goal ≥ 20×
 *   faster, 0 server processes while the warm agent lists.
 * - first call: a call to an Idle server through the warm agent (mcpctl starts it: spawn,
 *   handshake, listing, then the call) vs a raw spawn + SDK handshake + the same call with no
 *   mcpctl. Goal ≤ 1.1×.
 * Rounds alternate the two sides; medians. The agent's servers come from `--mcp-config`, so
 * each agent's session opens (and, at drain 0, ends) with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCPCTL, mcpctl, mcpctlEnv } from './peer/mcpctl.js';
import { processesMentioning } from './processes.js';
import { median, round } from './stats.js';
import { benchDir, type BenchDir } from './temp.js';
import { until } from '../testing/until.js';

export const GOAL_LIST_SPEEDUP = 20;
export const GOAL_FIRST_CALL_RATIO = 1.1;
const SERVERS = 30;
const ROUNDS = 5;
const FIXTURE = fileURLToPath(new URL('../e2e/fixtures/stdio-server.js', import.meta.url));

export interface LazyFigure {
  readonly servers: number;
  /** ms from a new agent's spawn to its complete tool list. */
  readonly listWarmMs: number;
  readonly listColdMs: number;
  readonly listSpeedup: number;
  /** Server processes running while the warm agent listed (most seen). */
  readonly warmProcesses: number;
  readonly firstCallMs: number;
  readonly rawCallMs: number;
  readonly firstCallRatio: number;
  readonly goal: {
    readonly listSpeedup: number;
    readonly firstCallRatio: number;
    readonly met: boolean;
  };
}

interface Daemon {
  readonly dir: BenchDir;
  readonly child: ChildProcess;
}

function serverArgs(dir: BenchDir, n: number): string[] {
  return [FIXTURE, `--tools=echo,sleep`, `--pid-file=${path.join(dir.root, 'pids', `s${n}.pid`)}`];
}

async function startDaemon(label: string, idleStop: string): Promise<Daemon> {
  const dir = benchDir(`lazy-${label}`);
  const servers = Object.fromEntries(
    Array.from({ length: SERVERS }, (_, i) => [
      `s${i}`,
      { command: process.execPath, args: serverArgs(dir, i) },
    ]),
  );
  dir.write(path.join(dir.root, 'servers.json'), { mcpServers: servers });
  mkdirSync(path.join(dir.root, 'pids'), { recursive: true });
  const child = spawn(
    process.execPath,
    [
      MCPCTL,
      'daemon',
      '--workspace',
      dir.workspace,
      '--drain-delay-ms',
      '0',
      '--idle-stop',
      idleStop,
    ],
    { env: mcpctlEnv(dir), stdio: 'ignore' },
  );
  await until(
    `the ${label} daemon to answer`,
    () =>
      mcpctl(dir, ['get', 'sessions', '-o', 'name']).then(
        () => true,
        () => false,
      ),
    { timeoutMs: 60_000 },
  );
  return { dir, child };
}

/** A new agent: `mcpctl serve` with the servers file, connected. */
async function agent(dir: BenchDir): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      MCPCTL,
      'serve',
      '--workspace',
      dir.workspace,
      '--mcp-config',
      path.join(dir.root, 'servers.json'),
    ],
    env: mcpctlEnv(dir),
    cwd: dir.workspace,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'mcpctl-lazy-bench', version: '0.0.0' });
  await client.connect(transport);
  return client;
}

const serverProcesses = (dir: BenchDir) => processesMentioning(path.join(dir.root, 'pids')).length;

/** ms until a new agent lists all tools; with the agent, still connected. */
async function listTime(
  d: Daemon,
  watch: (n: number) => void,
): Promise<{ ms: number; client: Client }> {
  const t0 = performance.now();
  const client = await agent(d.dir);
  await until(
    'the agent to list every tool',
    async () => {
      watch(serverProcesses(d.dir));
      return (await client.listTools()).tools.length >= SERVERS * 2;
    },
    { timeoutMs: 60_000, intervalMs: 1 },
  );
  return { ms: performance.now() - t0, client };
}

async function rawCall(dir: BenchDir): Promise<number> {
  const t0 = performance.now();
  const client = new Client({ name: 'raw', version: '0.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: serverArgs(dir, 999),
      stderr: 'ignore',
    }),
  );
  await client.callTool({ name: 'echo', arguments: {} });
  const ms = performance.now() - t0;
  await client.close();
  return ms;
}

async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exit;
}

export async function lazyFigure(say: (line: string) => void): Promise<LazyFigure> {
  const warm = await startDaemon('warm', '1s');
  const cold = await startDaemon('cold', '0');
  try {
    // Learn the warm side's catalogs once, and let its servers idle out.
    const first = await listTime(warm, () => undefined);
    await first.client.close();
    const listWarm: number[] = [];
    const listCold: number[] = [];
    const firstCall: number[] = [];
    const raw: number[] = [];
    let warmProcesses = 0;
    for (let i = 0; i < ROUNDS; i += 1) {
      await until('the warm servers to stop', () => serverProcesses(warm.dir) === 0, {
        timeoutMs: 30_000,
      });
      const w = await listTime(warm, (n) => (warmProcesses = Math.max(warmProcesses, n)));
      listWarm.push(w.ms);
      const t0 = performance.now();
      await w.client.callTool({ name: `s${i}__echo`, arguments: {} });
      firstCall.push(performance.now() - t0);
      await w.client.close();
      raw.push(await rawCall(warm.dir));
      const c = await listTime(cold, () => undefined);
      listCold.push(c.ms);
      await c.client.close();
      await until('the cold servers to stop', () => serverProcesses(cold.dir) === 0, {
        timeoutMs: 30_000,
      });
    }
    const listWarmMs = round(median(listWarm), 1);
    const listColdMs = round(median(listCold), 1);
    const firstCallMs = round(median(firstCall), 1);
    const rawCallMs = round(median(raw), 1);
    const listSpeedup = round(listColdMs / listWarmMs, 1);
    const firstCallRatio = round(firstCallMs / rawCallMs, 2);
    say(
      `    list: warm ${listWarmMs} ms, all ${SERVERS} started ${listColdMs} ms (${listSpeedup}×, ${warmProcesses} processes); first call ${firstCallMs} ms vs raw ${rawCallMs} ms (${firstCallRatio}×)`,
    );
    return {
      servers: SERVERS,
      listWarmMs,
      listColdMs,
      listSpeedup,
      warmProcesses,
      firstCallMs,
      rawCallMs,
      firstCallRatio,
      goal: {
        listSpeedup: GOAL_LIST_SPEEDUP,
        firstCallRatio: GOAL_FIRST_CALL_RATIO,
        met:
          listSpeedup >= GOAL_LIST_SPEEDUP &&
          warmProcesses === 0 &&
          firstCallRatio <= GOAL_FIRST_CALL_RATIO,
      },
    };
  } finally {
    await ended(warm.child);
    await ended(cold.child);
    warm.dir.remove();
    cold.dir.remove();
  }
}

export function lazyLines(f: LazyFigure): string[] {
  const mark = (ok: boolean) => (ok ? 'met' : 'missed');
  return [
    '',
    `lazy: ${f.servers} servers, a new agent's connect to its complete tool list, and a first call to an idle server (median of ${ROUNDS})`,
    `    warm catalogs ${f.listWarmMs} ms with ${f.warmProcesses} server processes, all started ${f.listColdMs} ms: ${f.listSpeedup}× (goal ≥ ${f.goal.listSpeedup}×, 0 processes: ${mark(f.listSpeedup >= f.goal.listSpeedup && f.warmProcesses === 0)})`,
    `    first call to an idle server ${f.firstCallMs} ms, raw spawn + handshake + call ${f.rawCallMs} ms: ${f.firstCallRatio}× (goal ≤ ${f.goal.firstCallRatio}×: ${mark(f.firstCallRatio <= f.goal.firstCallRatio)})`,
  ];
}
