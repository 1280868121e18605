/**
 * The results of a bench run: results.json in exactly the shape issue 8 gives (outside checks
 * read it), and the table a human reads, each figure beside its baseline with the ratio.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { GapDetail, GapFigures } from './gap.js';
import { httpLines, type HttpFigure } from './http.js';
import type { Machine, MachineDetail } from './machine.js';
import type { PoolFigure, PoolRun } from './pool-sharing.js';
import type { ProxyDetail, ProxyFigure } from './proxy/figure.js';
import { proxyLines } from './proxy/report.js';
import type { ReloadDetail, ReloadFigure } from './reload.js';
import { lspLines, type LspFigure } from './lsp/figure.js';
import { restartLines, type RestartDetail, type RestartFigure } from './restart/figure.js';
import type { ScaleResult } from './scale-figure.js';
import type { ScaleRow } from './scale.js';
import { round } from './stats.js';

export interface Results {
  readonly machine: Machine;
  readonly reload: ReloadFigure;
  readonly scale: readonly ScaleRow[];
  readonly gapUnchanged: GapFigures['gapUnchanged'];
  readonly gapChanged: GapFigures['gapChanged'];
  readonly pool: PoolFigure;
  /** Issue 14's `proxy` section (bench/proxy/figure.ts). */
  readonly proxy: ProxyFigure;
  /** Issue 26's `http` section (bench/http.ts). */
  readonly http: HttpFigure;
  /** Issue 25's `restart` section (bench/restart/figure.ts). */
  readonly restart: RestartFigure;
  /** Issue 24's `lsp` section (bench/lsp/figure.ts). */
  readonly lsp: LspFigure;
}

export interface Details {
  readonly machine: MachineDetail;
  readonly reload: ReloadDetail;
  readonly scale: readonly ScaleResult[];
  readonly gap: GapDetail;
  readonly pool: { pooled: PoolRun; unpooled: PoolRun };
  readonly proxy: ProxyDetail;
  readonly restart: RestartDetail;
  readonly seconds: number;
  readonly leftovers: number;
}

/** Writes our keys and keeps the others (`npm run bench:peer` stores its `peer` key there). */
export function writeResults(results: Results, file: string): void {
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

export function table(results: Results, d: Details): string {
  const m = d.machine;
  const out: string[] = [];
  out.push(
    `mcpctl bench — ${m.cpus} × ${m.model}, ${m.memoryGb} GiB, ${m.platform}, node ${m.node}, load ${m.loadAverage} at start`,
    '',
    row(['figure', 'mcpctl', 'baseline', 'ratio', 'goal']),
    row(COLUMNS.map((w) => '-'.repeat(w))),
  );
  const r = results.reload;
  out.push(
    row([
      '1 reload: write→Ready − settle, ms',
      `${r.reloadMs}`,
      `raw SDK connect ${r.rawConnectMs}`,
      ratio(r.reloadMs, r.rawConnectMs),
      `≤ 1.2 ${mark(r.overheadRatio <= 1.2)}`,
    ]),
    row([
      `    range of ${d.reload.reload.length} samples, ms`,
      spread(d.reload.reload),
      spread(d.reload.raw),
      '',
      `settle ${r.settleMs}`,
    ]),
  );
  for (const s of d.scale) {
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
  out.push(row(['  growth of reload CPU', growth(results.scale)]));
  const profiled = d.scale.find((s) => s.hot);
  if (profiled?.hot) {
    const line = (h: { ms: number; share: number; name: string }) =>
      `      ${h.ms.toFixed(1).padStart(7)} ms ${(h.share * 100).toFixed(0).padStart(3)}%  ${h.name}`;
    out.push(`  where N=${profiled.row.servers}'s reload CPU goes (five profiled edits together)`);
    out.push('    our code, inclusive:');
    for (const h of profiled.hot.inclusive) out.push(line(h));
    out.push('    self time, anywhere:');
    for (const h of profiled.hot.self) out.push(line(h));
  }
  const g = results.gapUnchanged;
  const c = results.gapChanged;
  out.push(
    row([
      '3 gap, 19 unchanged × 50 edits, ms',
      `${g.mcpctlMs}`,
      `restart-all ${g.restartAllMs}`,
      ratio(g.mcpctlMs, g.restartAllMs),
      `0 ${mark(g.mcpctlMs === 0)}`,
    ]),
    row([
      '    1 ms samples with a gap',
      `${d.gap.rolling.watchedSamples} of ${d.gap.rolling.samples}`,
      `${d.gap.restartAll.watchedSamples} of ${d.gap.restartAll.samples}`,
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
      `${d.gap.rolling.changedSamples} of ${d.gap.rolling.samples}`,
      `${d.gap.recreate.changedSamples} of ${d.gap.recreate.samples}`,
    ]),
  );
  const p = results.pool;
  out.push(
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
      `${d.pool.unpooled.daemonRssMb}`,
      ratio(p.daemonRssMb, d.pool.unpooled.daemonRssMb),
    ]),
    row([
      '    server processes RSS, MiB',
      `${d.pool.pooled.serversRssMb}`,
      `${d.pool.unpooled.serversRssMb}`,
      ratio(d.pool.pooled.serversRssMb, d.pool.unpooled.serversRssMb),
    ]),
    ...proxyLines(results.proxy, d.proxy),
    ...httpLines(results.http),
    ...restartLines(results.restart, d.restart),
    '',
    ...lspLines(results.lsp),
    '',
    `${d.seconds} s in all; processes left behind: ${d.leftovers}`,
  );
  return out.join('\n');
}
