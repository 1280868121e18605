/**
 * The restart figure (issue 25): how long an agent goes without its tools when the daemon dies
 * under it, with 10 servers configured (the SDK-free fast fixture, as bench:peer), beside what
 * peers offer, all in one run on this machine.
 *
 * - mcpctl: an agent (SDK client) on `mcpctl serve`; the daemon is SIGKILLed; the time from
 *   the kill to the agent's first successful `tools/call` of the last server's tool, the agent
 *   calling again at once whenever a call fails (serve restores the session; the agent does
 *   nothing else: no reconnect, no initialize).
 * - by hand (what peers offer: the agent shows the server as failed and the user restarts it):
 *   the agent's client is closed, the daemon SIGKILLed, and a new client with a new serve
 *   connects and calls; no human delay counted, so this is the least a restart by hand costs.
 * - the servers' own spawn: the 10 fixtures connected straight (SDK client each, all at once)
 *   until each has listed its tools; the goal is mcpctl ≤ 1 s + that.
 *
 * Guarantees: every process the figure starts carries its folder in its command line and is
 * ended before it returns (checked from /proc); the folder is removed.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient } from '../../cli/rpc/client.js';
import { until } from '../../testing/until.js';
import { BASE_TOOL, fleet, writePretty, type Fleet } from '../peer/fleet.js';
import { MCPCTL, mcpctl, mcpctlEnv, socketOf } from '../peer/mcpctl.js';
import { benchEnv, qualified, runDir, type RunDir } from '../peer/system.js';
import { killAll, processesMentioning } from '../processes.js';
import { median, round } from '../stats.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const SERVERS = 10;
export const ROUNDS = 5;
/** The goal: the agent's first call on the new daemon within 1 s plus the spawn. */
export const GOAL_OVER_SPAWN_MS = 1000;

/** results.json's `restart`. */
export interface RestartFigure {
  readonly date: string;
  readonly servers: number;
  readonly rounds: number;
  /** Medians, ms: mcpctl restoring the session, a restart by hand, the servers' own spawn. */
  readonly mcpctlMs: number;
  readonly byHandMs: number;
  readonly spawnMs: number;
  readonly goal: { readonly maxMs: number; readonly met: boolean };
}

/** Printed only: every round. */
export interface RestartDetail {
  readonly mcpctl: readonly number[];
  readonly byHand: readonly number[];
  readonly spawn: readonly number[];
  /** Calls the mcpctl agent made until one succeeded, per round. */
  readonly attempts: readonly number[];
}

const CALL_TIMEOUT_MS = 60_000;

function agentTransport(dir: RunDir): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [MCPCTL, 'serve', '--workspace', dir.workspace],
    env: mcpctlEnv(dir),
    cwd: dir.workspace,
    stderr: 'ignore',
  });
}

async function connectAgent(dir: RunDir): Promise<Client> {
  const client = new Client(
    { name: 'mcpctl-restart-bench', version: '0.0.0' },
    { capabilities: {} },
  );
  await client.connect(agentTransport(dir));
  return client;
}

async function daemonPid(dir: RunDir): Promise<number> {
  const rpc = await connectClient(socketOf(dir), 5000);
  try {
    return (await rpc.call<{ pid: number }>('daemon.status')).pid;
  } finally {
    await rpc.close();
  }
}

/** Calls the last server's tool until a call succeeds; how many calls that took. */
async function callUntilAnswered(client: Client, tool: string): Promise<number> {
  for (let attempts = 1; ; attempts += 1) {
    const ok = await client
      .callTool({ name: tool, arguments: {} }, undefined, { timeout: CALL_TIMEOUT_MS })
      .then(
        (r) => (r as CallToolResult).isError !== true,
        () => false,
      );
    if (ok) return attempts;
    if (attempts > 10_000) throw new Error(`${tool} never answered`);
  }
}

async function everyTool(client: Client, f: Fleet): Promise<void> {
  const all = f.names.map((n) => qualified(n, BASE_TOOL));
  await until(
    'every server tool',
    async () => {
      const names = new Set((await client.listTools()).tools.map((t) => t.name));
      return all.every((t) => names.has(t));
    },
    { timeoutMs: 60_000 },
  );
}

/** The 10 fixtures connected straight, all at once, until each listed its tools. */
async function spawnMs(f: Fleet): Promise<number> {
  const config = f.config(0).mcpServers;
  const clients: Client[] = [];
  const started = performance.now();
  try {
    await Promise.all(
      Object.values(config).map(async (entry) => {
        const client = new Client({ name: 'spawn', version: '0.0.0' }, { capabilities: {} });
        clients.push(client);
        await client.connect(
          new StdioClientTransport({
            command: entry.command,
            args: [...entry.args],
            env: benchEnv(),
            stderr: 'ignore',
          }),
        );
        await client.listTools();
      }),
    );
    return performance.now() - started;
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  }
}

export async function restartFigure(
  log: (line: string) => void = () => undefined,
): Promise<{ figure: RestartFigure; detail: RestartDetail }> {
  const dir = runDir('restart');
  const f = fleet(SERVERS, dir.root);
  mkdirSync(join(dir.home, '.qwen'), { recursive: true });
  mkdirSync(join(dir.root, 'run'), { recursive: true, mode: 0o700 });
  writePretty(join(dir.home, '.qwen', 'settings.json'), f.config(0));
  const tool = qualified(f.names[f.names.length - 1] ?? '', BASE_TOOL);
  const detail = { mcpctl: [] as number[], byHand: [] as number[], spawn: [] as number[] };
  const attempts: number[] = [];
  let client: Client | undefined;
  try {
    client = await connectAgent(dir);
    await everyTool(client, f);
    for (let round = 0; round < ROUNDS; round += 1) {
      // mcpctl: the same agent, the daemon killed under it.
      const pid = await daemonPid(dir);
      const killed = performance.now();
      process.kill(pid, 'SIGKILL');
      attempts.push(await callUntilAnswered(client, tool));
      detail.mcpctl.push(performance.now() - killed);
      await everyTool(client, f);

      // By hand: the agent ends, the daemon dies, a new agent session starts and calls.
      const byHandPid = await daemonPid(dir);
      await client.close();
      client = undefined;
      const started = performance.now();
      process.kill(byHandPid, 'SIGKILL');
      client = await connectAgent(dir);
      await callUntilAnswered(client, tool);
      detail.byHand.push(performance.now() - started);
      await everyTool(client, f);

      detail.spawn.push(await spawnMs(f));
      log(
        `    round ${round + 1}: mcpctl ${Math.round(detail.mcpctl.at(-1) ?? 0)} ms, by hand ${Math.round(detail.byHand.at(-1) ?? 0)} ms, spawn ${Math.round(detail.spawn.at(-1) ?? 0)} ms`,
      );
    }
  } finally {
    await client?.close().catch(() => undefined);
    await mcpctl(dir, ['stop']).catch(() => undefined);
    const leftovers = processesMentioning(dir.root);
    if (leftovers.length > 0) killAll(leftovers);
    dir.remove();
  }
  const mcpctlMs = round(median(detail.mcpctl), 1);
  const spawn = round(median(detail.spawn), 1);
  const maxMs = round(GOAL_OVER_SPAWN_MS + spawn, 1);
  return {
    figure: {
      date: new Date().toISOString(),
      servers: SERVERS,
      rounds: ROUNDS,
      mcpctlMs,
      byHandMs: round(median(detail.byHand), 1),
      spawnMs: spawn,
      goal: { maxMs, met: mcpctlMs <= maxMs },
    },
    detail: {
      mcpctl: detail.mcpctl.map((ms) => round(ms, 1)),
      byHand: detail.byHand.map((ms) => round(ms, 1)),
      spawn: detail.spawn.map((ms) => round(ms, 1)),
      attempts,
    },
  };
}

/** The lines `npm run bench` and `bench:restart` print. */
export function restartLines(figure: RestartFigure, detail: RestartDetail): string[] {
  const spread = (xs: readonly number[]) =>
    xs.length === 0 ? '—' : `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
  return [
    `8 restart: daemon SIGKILLed under an agent with ${figure.servers} servers, median of ${figure.rounds}, ms`,
    `    until the agent's next call succeeds: mcpctl ${figure.mcpctlMs} (${spread(detail.mcpctl)}), restarted by hand ${figure.byHandMs} (${spread(detail.byHand)})`,
    `    the servers' own spawn ${figure.spawnMs} (${spread(detail.spawn)}); goal ≤ 1000 + spawn = ${figure.goal.maxMs} ${figure.goal.met ? '✓' : '✗'}; calls until one succeeded: ${detail.attempts.join(', ')}`,
  ];
}
