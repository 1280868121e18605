/**
 * The peer figures: their place in results.json (key "peer", every other key kept as it is),
 * the goal of issue 17 (at both systems' defaults), and the table a human reads.
 *
 * Shape: per system, the issue's fields at the top level, measured at the largest N (`n`
 * says which), and `byN` with the full figures of every N. So a reader of the issue's shape
 * gets the harder case, and nothing measured is dropped.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { MachineDetail } from '../machine.js';
import { round } from '../stats.js';
import type { RunFigures } from './scenario.js';
import type { EditTrace } from './trace.js';

export interface SystemFigures {
  readonly n: number;
  readonly medianReloadMs: number;
  readonly unchangedRestarts: number;
  readonly gapSamples: number;
  readonly samples: number;
  readonly formatOnlyRestarts: number;
  readonly crashReported: string;
  readonly crashTruthful: boolean;
  readonly byN: Readonly<Record<string, RunFigures>>;
}

export interface GoalCheck {
  readonly n: number;
  /** mcpctl's median over mcp-hub's, both at their defaults: the goal is ≤ GOAL_RATIO. */
  readonly ratio: number;
  readonly met: boolean;
  readonly misses: readonly string[];
}

/** Issue 17: at both systems' defaults, mcpctl's median edit → visible ≤ 0.6 × mcp-hub's. */
export const GOAL_RATIO = 0.6;

/** Both systems at their defaults, side by side (issue 17's `peer.defaults`). */
export interface DefaultsFigures {
  readonly mcpHub: SystemFigures;
  readonly mcpctl: SystemFigures;
  readonly goal: { readonly met: boolean; readonly byN: readonly GoalCheck[] };
  /** One extra edit of each system, at the largest N, by stage (trace.ts). */
  readonly traces: readonly EditTrace[];
}

export interface PeerResults {
  readonly date: string;
  readonly machine: MachineDetail;
  /** Which fixture servers ran: `fast` (no SDK, starts in tens of ms) or `sdk`. */
  readonly fixture: string;
  readonly rawConnectMs: number;
  readonly defaults: DefaultsFigures;
}

export function systemFigures(runs: readonly RunFigures[]): SystemFigures {
  const top = [...runs].sort((a, b) => b.n - a.n)[0];
  if (!top) throw new Error('no runs');
  return {
    n: top.n,
    medianReloadMs: top.medianReloadMs,
    unchangedRestarts: top.unchangedRestarts,
    gapSamples: top.gapSamples,
    samples: top.samples,
    formatOnlyRestarts: top.formatOnlyRestarts,
    crashReported: top.crashReported,
    crashTruthful: top.crashTruthful,
    byN: Object.fromEntries(runs.map((r) => [String(r.n), r])),
  };
}

/** The goal at one N: mcpctl against mcp-hub, both at their defaults. */
export function goalAt(hub: RunFigures, ours: RunFigures): GoalCheck {
  const ratio = round(ours.medianReloadMs / hub.medianReloadMs, 2);
  const misses: string[] = [];
  if (!(ours.medianReloadMs <= GOAL_RATIO * hub.medianReloadMs))
    misses.push(`median ${ours.medianReloadMs} ms > ${GOAL_RATIO} × ${hub.medianReloadMs} ms`);
  if (ours.unchangedRestarts !== 0) misses.push(`${ours.unchangedRestarts} unchanged restarts`);
  if (ours.gapSamples !== 0) misses.push(`${ours.gapSamples} gap samples`);
  if (ours.formatOnlyRestarts !== 0) misses.push(`${ours.formatOnlyRestarts} format-only restarts`);
  if (!ours.crashTruthful) misses.push(`crash status not truthful (${ours.crashReported})`);
  return { n: ours.n, ratio, met: misses.length === 0, misses };
}

/**
 * The JSON object in `file` ({} when there is no file). A file that exists but does not hold a
 * JSON object is an error: the main bench's figures in it must never be lost to ours.
 */
export function existingResults(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`${file} does not hold a JSON object; not overwriting it`);
  return parsed as Record<string, unknown>;
}

/** Puts `value` at `key` of the JSON object in `file`, every other key kept as it is. */
export function mergeResultKey(file: string, key: string, value: unknown): void {
  const existing = existingResults(file);
  // Renamed into place: a reader (or the main bench) never sees half a file.
  const tmp = `${file}.${key}-${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...existing, [key]: value }, null, 2)}\n`);
  renameSync(tmp, file);
}

/** Puts `peer` into the JSON object in `file`, every other key kept as it is. */
export function mergeResults(file: string, peer: PeerResults): void {
  mergeResultKey(file, 'peer', peer);
}

const mark = (ok: boolean) => (ok ? '✓' : '✗');

function cells(label: string, values: readonly string[]): string {
  return `  ${label.padEnd(46)}${values.map((v) => v.padStart(15)).join('')}`;
}

const range = (xs: readonly number[]) =>
  `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

/** The table's rows: label, and the cell of one system's run. */
const ROWS: ReadonlyArray<readonly [string, (r: RunFigures) => string]> = [
  ['edit → new tool listed, median ms', (r) => r.medianReloadMs.toFixed(0)],
  ['  range, ms', (r) => range(r.reloadMs)],
  ['  raw SDK connect just before each, median ms', (r) => r.rawConnectMs.toFixed(0)],
  ['  edit minus that raw connect, median ms', (r) => r.overRawMs.toFixed(0)],
  ['tools/list round trip while sampling, median ms', (r) => r.listMs.toFixed(1)],
  ['unchanged servers restarted, all edits', (r) => String(r.unchangedRestarts)],
  ['listings missing another server’s tool', (r) => `${r.gapSamples}/${r.samples}`],
  ['listings missing the edited server’s tool', (r) => `${r.changedServerGapSamples}/${r.samples}`],
  ['format-only rewrite: restarts', (r) => String(r.formatOnlyRestarts)],
  ['crashed server: status truthful', (r) => (r.crashTruthful ? 'yes' : 'no (stale)')],
  ['start until all tools listed, ms', (r) => String(r.startupMs)],
  ['processes left behind', (r) => String(r.leftovers)],
];

export function table(
  p: PeerResults,
  systems: ReadonlyArray<{ key: 'mcpHub' | 'mcpctl'; label: string }>,
): string {
  const m = p.machine;
  const d = p.defaults;
  const out: string[] = [
    `mcpctl vs mcp-hub, both at their defaults — ${p.date}`,
    `${m.cpus} × ${m.model}, ${m.memoryGb} GiB, ${m.platform}, node ${m.node}, load ${m.loadAverage} at start`,
    `raw SDK connect of one ${p.fixture} fixture server (spawn + initialize + tools/list): ${p.rawConnectMs} ms, median of every one in the run`,
  ];
  const ns = Object.keys(d.mcpHub.byN)
    .map(Number)
    .sort((a, b) => a - b);
  for (const n of ns) {
    const runs = systems.map((s) => d[s.key].byN[String(n)]);
    out.push(
      '',
      cells(
        `N = ${n}`,
        systems.map((s) => s.label),
      ),
      ...ROWS.map(([label, pick]) =>
        cells(
          label,
          runs.map((r) => (r ? pick(r) : '—')),
        ),
      ),
    );
    for (const [i, s] of systems.entries()) {
      const r = runs[i];
      if (r) out.push(`  crash, ${s.label}: ${r.crashReported}`);
    }
    const g = d.goal.byN.find((x) => x.n === n);
    if (g)
      out.push(
        `  goal at N=${n} (mcpctl vs mcp-hub at defaults): ratio ${g.ratio} (≤ ${GOAL_RATIO}) ${mark(g.met)}${g.misses.length ? ` — missed: ${g.misses.join('; ')}` : ''}`,
      );
  }
  return out.join('\n');
}
