/**
 * `node dist/bench/flood.js [notifications|garbage|churn …]` (issue 13, finding 10): what one
 * misbehaving stdio server costs the daemon and the other agents.
 *
 * For each mode: a daemon serves a quiet fixture; `get servers` latency and the daemon's CPU
 * are measured; then a flooding fixture is added, and the same figures are taken again while
 * an agent (`mcpctl serve` with the SDK client) counts the tools/list_changed it receives.
 * Printed, not asserted: the e2e test asserts behaviour, this prints numbers. Everything it
 * starts lives in a temp dir and is ended at the end.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, TestEnv, isReady } from '../e2e/harness.js';

const MODES = {
  notifications: ['--flood-notifications'],
  garbage: ['--flood-garbage'],
  churn: ['--churn-tools=10'],
} as const;
type Mode = keyof typeof MODES;

const WINDOW_MS = 5000;

function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100/s)
}

async function cpuPercent(pid: number, ms: number): Promise<number> {
  const before = cpuTicks(pid);
  await new Promise((resolve) => setTimeout(resolve, ms));
  // ticks are 10 ms; percent to one decimal
  return Math.round(((cpuTicks(pid) - before) * 10 * 100 * 10) / ms) / 10;
}

async function medianGetMs(env: TestEnv, runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    const r = await env.cli(['get', 'servers', '-o', 'name']);
    if (r.code !== 0) throw new Error(`get servers failed: ${r.stderr}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(runs / 2)]);
}

async function measure(mode: Mode): Promise<string> {
  const env = new TestEnv();
  try {
    const quiet = { quiet: env.fixture('quiet') };
    env.write(env.userSettingsPath, { mcpServers: quiet });
    const daemon = await env.startDaemon();
    await env.untilServers((m) => isReady(m.get('quiet')), 'quiet Ready');
    const baseGet = await medianGetMs(env);
    const baseCpu = await cpuPercent(daemon.pid, 2000);

    env.write(env.userSettingsPath, {
      mcpServers: { ...quiet, flood: env.fixture('flood', [...MODES[mode]]) },
    });
    await env.untilServers((m) => isReady(m.get('flood')), 'flood Ready');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--workspace', env.workspace],
      env: env.env() as Record<string, string>,
      cwd: env.workspace,
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bench-agent', version: '1.0.0' });
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged += 1;
    });
    await client.connect(transport);
    try {
      await client.listTools();
      const startCount = listChanged;
      const started = performance.now();
      const [cpu, get] = await Promise.all([
        cpuPercent(daemon.pid, WINDOW_MS),
        medianGetMs(env, 9),
      ]);
      const perSecond = ((listChanged - startCount) * 1000) / (performance.now() - started);
      const events = await env.json<{
        items: { type: string; reason: string; message: string; involvedObject: string }[];
      }>(['get', 'events', '-o', 'json']);
      const warnings = events.items
        .filter((e) => e.type === 'Warning' && e.involvedObject === 'server/flood')
        .map((e) => e.reason);
      return (
        `${mode.padEnd(14)} get servers ${baseGet} → ${get} ms, daemon cpu ${baseCpu} → ${cpu} %, ` +
        `agent list_changed ${perSecond.toFixed(1)}/s, warnings: ${[...new Set(warnings)].join(',') || 'none'}`
      );
    } finally {
      await client.close();
    }
  } finally {
    await env.cli(['stop'], { timeoutMs: 30_000 }).catch(() => undefined);
    await env.cleanup();
  }
}

async function main(): Promise<void> {
  const asked = process.argv.slice(2).filter((m): m is Mode => m in MODES);
  const modes = asked.length > 0 ? asked : (Object.keys(MODES) as Mode[]);
  for (const mode of modes) process.stdout.write(`${await measure(mode)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`flood bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
