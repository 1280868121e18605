/**
 * `npm run bench:peer` (issues 9 and 17): mcpctl side by side with mcp-hub on the same reloads,
 * in one run, on this machine, both at their defaults. For N = 20 and 100 fast-starting fixture
 * servers, each system runs the same scenario (scenario.ts); the figures go into $BENCH_OUT or
 * bench/results.json under "peer" ("peer.defaults": both systems, the goal, one traced edit
 * each), and a table with the date and machine is printed.
 *
 * The systems run one after another, never at once, so neither loads the other's machine.
 * PEER_N (e.g. `3,5`) and PEER_EDITS override the sizes, for trying the harness quickly;
 * PEER_KEEP=1 keeps every run's folder (configs, mcp-hub's and mcpctl's logs).
 */
import { fileURLToPath } from 'node:url';
import { machine } from '../machine.js';
import { killAll, processesMentioning } from '../processes.js';
import { median, round } from '../stats.js';
import { FIXTURE_KIND } from './fleet.js';
import { hubLogOf, mcpHub } from './hub.js';
import { mcpctlAt } from './mcpctl.js';
import { rawConnectMs } from './raw.js';
import {
  existingResults,
  goalAt,
  mergeResults,
  systemFigures,
  table,
  type PeerResults,
} from './results.js';
import { runScenario, type AfterEdits, type RunFigures } from './scenario.js';
import { RUN_PREFIX } from './system.js';
import { traceHubEdit, traceLines, traceMcpctlEdit, type EditTrace } from './trace.js';

/** The repository's bench/results.json, whether we run from dist/ or another build folder. */
const DEFAULT_OUT = fileURLToPath(new URL('../../../bench/results.json', import.meta.url));

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function numbers(text: string | undefined, fallback: number[]): number[] {
  const list = (text ?? '')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isSafeInteger(n) && n > 0);
  return list.length ? list : fallback;
}

async function main(): Promise<number> {
  const started = performance.now();
  const m = machine();
  const date = new Date().toISOString();
  const ns = numbers(process.env.PEER_N, [20, 100]).sort((a, b) => a - b);
  const edits = numbers(process.env.PEER_EDITS, [10])[0] ?? 10;
  const largest = ns[ns.length - 1];
  const out = process.env.BENCH_OUT || DEFAULT_OUT;
  existingResults(out); // Fails now, not after minutes of work, when it could not be merged.
  log(`peer bench on ${m.cpus} cpus, node ${m.node}, load ${m.loadAverage}; N = ${ns.join(', ')}`);

  const raw = await rawConnectMs(5);
  log(`raw SDK connect: ${raw.median.toFixed(0)} ms median`);

  const systems = [
    { key: 'mcpHub', kind: mcpHub },
    { key: 'mcpctl', kind: mcpctlAt() },
  ] as const;
  const runs = new Map<string, RunFigures[]>(systems.map((s) => [s.key, []]));
  const traces: EditTrace[] = [];
  // One extra, traced edit (after the counted ones) for the two systems the goal compares.
  const tracers: Partial<Record<string, AfterEdits>> = {
    mcpHub: async (ctx, version) => {
      traces.push(await traceHubEdit(ctx, version + 1, hubLogOf(ctx.dir)));
      return version + 1;
    },
    mcpctl: async (ctx, version) => {
      traces.push(await traceMcpctlEdit(ctx, version + 1, mcpctlAt().label));
      return version + 1;
    },
  };
  for (const n of ns) {
    for (const s of systems) {
      log(`N=${n} ${s.kind.label}…`);
      const tracer = n === largest ? tracers[s.key] : undefined;
      const r = await runScenario(s.kind, n, {
        edits,
        log,
        ...(tracer ? { afterEdits: tracer } : {}),
      });
      log(
        `      median ${r.medianReloadMs} ms, ${r.unchangedRestarts} unchanged restarts, ${r.gapSamples}/${r.samples} gap samples, ${r.formatOnlyRestarts} format-only restarts, crash: ${r.crashReported}`,
      );
      runs.get(s.key)?.push(r);
    }
  }

  const leftovers = processesMentioning(RUN_PREFIX);
  if (leftovers.length > 0) {
    log(`processes left behind, killing them: ${leftovers.join(' ')}`);
    killAll(leftovers);
  }

  const of = (key: string) => runs.get(key) ?? [];
  const byN = ns.flatMap((n) => {
    const hub = of('mcpHub').find((r) => r.n === n);
    const ours = of('mcpctl').find((r) => r.n === n);
    return hub && ours ? [goalAt(hub, ours)] : [];
  });
  const peer: PeerResults = {
    date,
    machine: m,
    fixture: FIXTURE_KIND,
    // Every raw connect of the run: the 5 at the start and the one before each edit.
    rawConnectMs: round(
      median([...raw.all, ...[...runs.values()].flat().flatMap((r) => r.rawSamplesMs)]),
      1,
    ),
    defaults: {
      mcpHub: systemFigures(of('mcpHub')),
      mcpctl: systemFigures(of('mcpctl')),
      goal: { met: byN.length > 0 && byN.every((g) => g.met), byN },
      traces,
    },
  };
  mergeResults(out, peer);

  const seconds = Math.round((performance.now() - started) / 1000);
  const lines = [
    table(
      peer,
      systems.map((s) => ({ key: s.key, label: s.kind.label })),
    ),
  ];
  for (const t of traces) lines.push('', ...traceLines(t));
  lines.push(
    '',
    `goal ${peer.defaults.goal.met ? 'met' : 'missed'}; ${seconds} s in all; processes left behind: ${leftovers.length}`,
    `written to ${out} (key "peer")`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  return leftovers.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`peer bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    killAll(processesMentioning(RUN_PREFIX));
    process.exit(1);
  },
);
