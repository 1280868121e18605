/**
 * The proxy figure for a human (the lines `npm run bench` and `npm run bench:proxy` print) and
 * its place in results.json (key "proxy", every other key kept as it is).
 */
import { EARLY_CALLS } from './load.js';
import { round } from '../stats.js';
import {
  GOAL_P50_OVER_DIRECT_MS,
  GOAL_PAR_OF_DIRECT,
  type ProxyDetail,
  type ProxyFigure,
  type RowKey,
} from './figure.js';

const LABELS: ReadonlyArray<readonly [RowKey, string]> = [
  ['direct', 'direct (stdio)'],
  ['mcpctl', 'mcpctl serve'],
  ['mcpHub', 'mcp-hub 4.2.1 (SSE)'],
];

const mark = (ok: boolean) => (ok ? '✓' : '✗');

function cells(values: readonly string[]): string {
  return `    ${(values[0] ?? '').padEnd(22)}${values
    .slice(1)
    .map((v) => v.padStart(11))
    .join('')}`;
}

export function proxyLines(p: ProxyFigure, d: ProxyDetail): string[] {
  const r = p.ratios;
  return [
    `6 proxy: echo tool of the fast stdio fixture, ${p.calls.warmup} warm-up, ${p.calls.sequential} sequential, ${p.calls.parallel} parallel calls (${d.seconds} s)`,
    cells(['', 'p50 ms', 'p99 ms', 'mean ms', 'seq/s', 'par/s', 'start ms', 'early p50']),
    ...LABELS.map(([key, label]) => {
      const row = p[key];
      const x = d.rows[key];
      return cells([
        label,
        row.p50Ms.toFixed(3),
        row.p99Ms.toFixed(3),
        x.meanMs.toFixed(3),
        String(row.seqPerS),
        String(row.parPerS),
        String(x.startMs),
        x.earlyP50Ms.toFixed(3),
      ]);
    }),
    `    mcpctl p50 − direct p50: ${r.mcpctlP50OverDirectMs} ms (goal ≤ ${GOAL_P50_OVER_DIRECT_MS} ${mark(r.mcpctlP50OverDirectMs <= GOAL_P50_OVER_DIRECT_MS)}); mcpctl par/s ÷ direct: ${r.mcpctlParOfDirect} (goal ≥ ${GOAL_PAR_OF_DIRECT} ${mark(r.mcpctlParOfDirect >= GOAL_PAR_OF_DIRECT)})`,
    `    mcpctl ÷ mcp-hub: p50 ${r.mcpctlP50OfHub}, par/s ${r.mcpctlParOfHub}; goal ${p.goal.met ? 'met' : `missed: ${p.goal.misses.join('; ')}`}`,
    `    early (first ${EARLY_CALLS} calls of fresh processes, cold JIT): mcpctl p50 − direct p50 ${p.early.mcpctlP50OverDirectMs} ms; a second agent session on the warm daemon: p50 ${p.early.mcpctlNewSession} ms (${round(p.early.mcpctlNewSession - p.early.direct, 3)} over direct's early), its serve answered initialize ${d.mcpctlNewSessionStartMs} ms after it was spawned`,
  ];
}
