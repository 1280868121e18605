/**
 * The results of a bench run: results.json in exactly the shape issue 8 gives (outside checks
 * read it; a figure that failed is `{ "failed": "<message>" }` in its place, sections.ts), and
 * the table a human reads, each figure beside its baseline with the ratio: a head, then each
 * section's lines (the sections print their own: reloadLines … lspLines).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { GapDetail, GapFigures } from './gap.js';
import type { MachineDetail } from './machine.js';
import type { PoolFigure, PoolRun } from './pool-sharing.js';
import type { ReloadDetail, ReloadFigure } from './reload.js';
import { isScaleResult, type ScaleOutcome } from './scale-figure.js';
import { failedLine } from './sections.js';
import type { ScaleRow } from './scale.js';
import { round } from './stats.js';

/** Writes our keys and keeps the others (`npm run bench:peer` stores its `peer` key there). */
export function writeResults(results: Readonly<Record<string, unknown>>, file: string): void {
  mkdirSync(dirname(file), { recursive: true });
  let previous: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      previous = parsed as Record<string, unknown>;
  } catch {
    // No earlier file, or an unreadable one: start afresh.
  }
  writeFileSync(file, `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`);
}

const COLUMNS = [40, 22, 28, 8, 12];

function row(cells: readonly string[]): string {
  return cells
    .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(COLUMNS[i] ?? 12)))
    .join(' ')
    .trimEnd();
}

function ratio(a: number, b: number): string {
  return b === 0 ? (a === 0 ? '—' : '∞') : round(a / b, 2).toFixed(2);
}

const mark = (ok: boolean) => (ok ? '✓' : '✗');

function spread(samples: readonly number[]): string {
  return samples.length === 0 ? '—' : `${Math.min(...samples)}–${Math.max(...samples)}`;
}

/** Growth of CPU per ×10 servers, and the exponent k of cpu ∝ N^k over the whole range. */
function growth(rows: readonly ScaleRow[]): string {
  const steps: string[] = [];
  for (let i = 1; i < rows.length; i++) {
    const a = rows[i - 1];
    const b = rows[i];
    if (a && b) steps.push(`${a.servers}→${b.servers}: ×${round(b.cpuMs / a.cpuMs, 1)}`);
  }
  const first = rows[0];
  const last = rows[rows.length - 1];
  const k =
    first && last && last.servers > first.servers
      ? Math.log(last.cpuMs / first.cpuMs) / Math.log(last.servers / first.servers)
      : NaN;
  return `${steps.join(', ')}; overall cpu ∝ N^${round(k, 2)}`;
}

/** The table's head: the machine, and the columns every figure's rows fill. */
export function tableHead(m: MachineDetail): string[] {
  return [
    `mcpctl bench — ${m.cpus} × ${m.model}, ${m.memoryGb} GiB, ${m.platform}, node ${m.node}, load ${m.loadAverage} at start`,
    '',
    row(['figure', 'mcpctl', 'baseline', 'ratio', 'goal']),
    row(COLUMNS.map((w) => '-'.repeat(w))),
  ];
}

export function reloadLines(r: ReloadFigure, d: ReloadDetail): string[] {
  return [
    row([
      '1 reload: write→Ready − settle, ms',
      `${r.reloadMs}`,
      `raw SDK connect ${r.rawConnectMs}`,
      ratio(r.reloadMs, r.rawConnectMs),
      `≤ 1.2 ${mark(r.overheadRatio <= 1.2)}`,
    ]),
    row([
      `    range of ${d.reload.length} samples, ms`,
      spread(d.reload),
      spread(d.raw),
      '',
      `settle ${r.settleMs}`,
    ]),
  ];
}

/** Figure 2: a block per N (or the line saying it failed), the growth, the profile. */
export function scaleLines(scale: readonly ScaleOutcome[]): string[] {
  const out: string[] = [];
  for (const s of scale) {
    if (!isScaleResult(s)) {
      out.push(failedLine(`2 scale N=${s.servers}`, s.failed));
      continue;
    }
    const x = s.row;
    const exact = x.connects === 1 && x.disconnects === 1;
    out.push(
      row([
        `2 scale N=${x.servers}: edit one`,
        `${x.connects} connect, ${x.disconnects} disconnect`,
        '',
        '',
        `1 / 1 ${mark(exact)}`,
      ]),
      row([
        '    controller CPU for the reload, ms',
        `${x.cpuMs}`,
        `informer ${s.detail.informerCpuMs} + reconcile ${s.detail.reconcileCpuMs}`,
        '',
        x.servers === 10_000 ? `≤ 100 ${mark(x.cpuMs <= 100)}` : '',
      ]),
      row([
        '    theme-only edit: reconciles',
        `${x.themeEditReconciles} (cpu ${s.detail.themeCpuMs} ms)`,
        `file ${s.detail.fileKb} KiB, start ${s.detail.startupMs} ms`,
        '',
        `0 ${mark(x.themeEditReconciles === 0 && s.detail.themeConnects === 0)}`,
      ]),
    );
  }
  const measured = scale.filter(isScaleResult);
  out.push(row(['  growth of reload CPU', growth(measured.map((s) => s.row))]));
  const profiled = measured.find((s) => s.hot);
  if (profiled?.hot) {
    const line = (h: { ms: number; share: number; name: string }) =>
      `      ${h.ms.toFixed(1).padStart(7)} ms ${(h.share * 100).toFixed(0).padStart(3)}%  ${h.name}`;
    out.push(`  where N=${profiled.row.servers}'s reload CPU goes (five profiled edits together)`);
    out.push('    our code, inclusive:');
    for (const h of profiled.hot.inclusive) out.push(line(h));
    out.push('    self time, anywhere:');
    for (const h of profiled.hot.self) out.push(line(h));
  }
  return out;
}

/** Figures 3 and 4. */
export function gapLines(f: GapFigures, d: GapDetail): string[] {
  const g = f.gapUnchanged;
  const c = f.gapChanged;
  return [
    row([
      '3 gap, 19 unchanged × 50 edits, ms',
      `${g.mcpctlMs}`,
      `restart-all ${g.restartAllMs}`,
      ratio(g.mcpctlMs, g.restartAllMs),
      `0 ${mark(g.mcpctlMs === 0)}`,
    ]),
    row([
      '    1 ms samples with a gap',
      `${d.rolling.watchedSamples} of ${d.rolling.samples}`,
      `${d.restartAll.watchedSamples} of ${d.restartAll.samples}`,
    ]),
    row([
      '4 gap, the changed server × 50, ms',
      `RollingUpdate ${c.rollingUpdateMs}`,
      `Recreate ${c.recreateMs}`,
      ratio(c.rollingUpdateMs, c.recreateMs),
      `0 ${mark(c.rollingUpdateMs === 0)}`,
    ]),
    row([
      '    1 ms samples with a gap',
      `${d.rolling.changedSamples} of ${d.rolling.samples}`,
      `${d.recreate.changedSamples} of ${d.recreate.samples}`,
    ]),
  ];
}

/** Figure 5. */
export function poolLines(p: PoolFigure, d: { pooled: PoolRun; unpooled: PoolRun }): string[] {
  return [
    row([
      `5 pool, ${p.sessions} sessions × ${p.servers}: processes`,
      `${p.processes}`,
      `a pool per session ${p.unpooledProcesses}`,
      ratio(p.processes, p.unpooledProcesses),
      `${p.servers} ${mark(p.processes === p.servers)}`,
    ]),
    row([
      '    daemon RSS, MiB',
      `${p.daemonRssMb}`,
      `${d.unpooled.daemonRssMb}`,
      ratio(p.daemonRssMb, d.unpooled.daemonRssMb),
    ]),
    row([
      '    server processes RSS, MiB',
      `${d.pooled.serversRssMb}`,
      `${d.unpooled.serversRssMb}`,
      ratio(d.pooled.serversRssMb, d.unpooled.serversRssMb),
    ]),
  ];
}
