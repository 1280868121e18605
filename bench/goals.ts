/**
 * The `goals` object of results.json (issue #37): every goal the bench's figures are held to,
 * each with its figure, its floor (the baseline of the same run) where it has one, its ratio,
 * what the goal is, and whether it is met, so a reader (or a script) sees them in one place.
 *
 * Guarantees:
 * - One entry per goal of every figure that was measured; a figure that failed, or was not
 *   run (a section run alone), has no entries, and `met` counts only those measured.
 * - The figures that judge their goals themselves (proxy, http, restart, lsp, its diagnostics,
 *   serve) are taken at their word; the others are judged here by the thresholds their
 *   printed lines use. The diagnostics figure's entries carry today's rule as their floor.
 */
import type { GapFigures } from './gap.js';
import type { HttpFigure } from './http.js';
import type { LspDiagnosticsFigure } from './lsp/diagnostics-figure.js';
import type { LspFigure } from './lsp/figure.js';
import type { PoolFigure } from './pool-sharing.js';
import type { ProxyFigure } from './proxy/figure.js';
import type { ReloadFigure } from './reload.js';
import type { RestartFigure } from './restart/figure.js';
import type { ScaleRow } from './scale.js';
import type { ServeRssFigure } from './serve-rss.js';
import type { LazyFigure } from './lazy.js';
import { isFailed } from './sections.js';

export interface BenchGoal {
  /** What the goal is, as the table says it: `≤ 1.2× raw connect`. */
  readonly goal: string;
  readonly figure?: number;
  readonly floor?: number;
  readonly ratio?: number;
  readonly met: boolean;
}

export interface BenchGoals {
  /** Every goal measured is met. */
  readonly met: boolean;
  readonly goals: Readonly<Record<string, BenchGoal>>;
}

/** What results.json holds: the figures by key (any may be failed or absent). */
export interface MeasuredFigures {
  readonly reload?: ReloadFigure;
  readonly scale?: readonly unknown[];
  readonly gapUnchanged?: GapFigures['gapUnchanged'];
  readonly gapChanged?: GapFigures['gapChanged'];
  readonly pool?: PoolFigure;
  readonly proxy?: ProxyFigure;
  readonly http?: HttpFigure;
  readonly restart?: RestartFigure;
  readonly lsp?: LspFigure;
  readonly lspDiagnostics?: LspDiagnosticsFigure;
  readonly serve?: ServeRssFigure;
  readonly lazy?: LazyFigure;
}

/** `value` when it was measured: present and not `{ failed }`. */
function measured<T>(value: T | undefined): T | undefined {
  return value === undefined || isFailed(value) ? undefined : value;
}

function isScaleRow(value: unknown): value is ScaleRow {
  return typeof (value as Partial<ScaleRow> | undefined)?.cpuMs === 'number';
}

export function benchGoals(f: Readonly<Record<string, unknown>>): BenchGoals {
  const figures = f as MeasuredFigures;
  const goals: Record<string, BenchGoal> = {};
  const reload = measured(figures.reload);
  if (reload)
    goals['reload'] = {
      goal: '≤ 1.2× raw SDK connect',
      figure: reload.reloadMs,
      floor: reload.rawConnectMs,
      ratio: reload.overheadRatio,
      met: reload.overheadRatio <= 1.2,
    };
  const scale = (measured(figures.scale) ?? []).filter(isScaleRow);
  if (scale.length > 0) {
    goals['scale.connects'] = {
      goal: 'an edit of one of N servers: 1 connect, 1 disconnect, at every N',
      met: scale.every((r) => r.connects === 1 && r.disconnects === 1),
    };
    goals['scale.themeEdit'] = {
      goal: 'a theme-only edit reconciles nothing, at every N',
      met: scale.every((r) => r.themeEditReconciles === 0),
    };
    const largest = scale.find((r) => r.servers === 10_000);
    if (largest)
      goals['scale.cpu10k'] = {
        goal: 'controller CPU of the reload at N = 10,000 ≤ 100 ms',
        figure: largest.cpuMs,
        met: largest.cpuMs <= 100,
      };
  }
  const unchanged = measured(figures.gapUnchanged);
  if (unchanged)
    goals['gapUnchanged'] = {
      goal: 'no tool gap for the unchanged servers (0 ms)',
      figure: unchanged.mcpctlMs,
      floor: unchanged.restartAllMs,
      met: unchanged.mcpctlMs === 0,
    };
  const changed = measured(figures.gapChanged);
  if (changed)
    goals['gapChanged'] = {
      goal: 'no tool gap for the changed server with RollingUpdate (0 ms)',
      figure: changed.rollingUpdateMs,
      floor: changed.recreateMs,
      met: changed.rollingUpdateMs === 0,
    };
  const pool = measured(figures.pool);
  if (pool)
    goals['pool'] = {
      goal: 'one process per identical server, however many sessions',
      figure: pool.processes,
      floor: pool.unpooledProcesses,
      met: pool.processes === pool.servers,
    };
  const proxy = measured(figures.proxy);
  if (proxy)
    goals['proxy'] = {
      goal: proxy.goal.misses.join('; ') || 'p50 and par/s against direct and mcp-hub',
      met: proxy.goal.met,
    };
  const http = measured(figures.http);
  if (http)
    goals['http'] = {
      goal: http.goal.misses.join('; ') || 'HTTP against serve, no extra process',
      met: http.goal.met,
    };
  const restart = measured(figures.restart);
  if (restart)
    goals['restart'] = {
      goal: `recovered ≤ ${restart.goal.maxMs} ms`,
      figure: restart.mcpctlMs,
      floor: restart.byHandMs,
      met: restart.goal.met,
    };
  const lsp = measured(figures.lsp);
  if (lsp)
    for (const [name, g] of Object.entries(lsp.goals))
      goals[`lsp.${name}`] = {
        goal: 'min' in g ? `≥ ${g.min}` : `≤ ${g.max}`,
        met: g.met,
      };
  const diag = measured(figures.lspDiagnostics);
  if (diag) {
    goals['lspDiagnostics.errorReported'] = {
      goal: `a new error reported ≤ ${diag.goals.errorRatio.max}× today's rule`,
      figure: diag.errorReportedMs,
      floor: diag.errorReportedTodayMs,
      ratio: diag.errorRatio,
      met: diag.goals.errorRatio.met,
    };
    goals['lspDiagnostics.fixCleared'] = {
      goal: `a fix cleared ≤ ${diag.goals.fixRatio.max}× today's rule`,
      figure: diag.fixClearedMs,
      floor: diag.fixClearedTodayMs,
      ratio: diag.fixRatio,
      met: diag.goals.fixRatio.met,
    };
    goals['lspDiagnostics.firstAsk'] = {
      goal: `right on the first ask in every round (${diag.goals.firstAsk.rounds} errors, as many fixes)`,
      figure: Math.min(diag.firstAsk.error, diag.firstAsk.fix),
      met: diag.goals.firstAsk.met,
    };
  }
  const serve = measured(figures.serve);
  if (serve)
    goals['serve'] = {
      goal: `idle serve RSS ≤ ${serve.goal.serveMb} MiB`,
      figure: serve.serveMb,
      floor: serve.floorMb,
      ratio: Math.round((serve.serveMb / serve.floorMb) * 100) / 100,
      met: serve.goal.met,
    };
  const lazy = measured(figures.lazy);
  if (lazy) {
    goals['lazy.list'] = {
      goal: `a new agent lists ${lazy.servers} servers' tools from warm catalogs ≥ ${lazy.goal.listSpeedup}× faster than starting them all, with 0 processes`,
      figure: lazy.listWarmMs,
      floor: lazy.listColdMs,
      ratio: lazy.listSpeedup,
      met: lazy.listSpeedup >= lazy.goal.listSpeedup && lazy.warmProcesses === 0,
    };
    goals['lazy.firstCall'] = {
      goal: `a first call to an idle server ≤ ${lazy.goal.firstCallRatio}× a raw spawn, handshake and call`,
      figure: lazy.firstCallMs,
      floor: lazy.rawCallMs,
      ratio: lazy.firstCallRatio,
      met: lazy.firstCallRatio <= lazy.goal.firstCallRatio,
    };
  }
  return { met: Object.values(goals).every((g) => g.met), goals };
}

/** The table's closing lines: how many goals are met, and the ones that are not. */
export function goalLines(g: BenchGoals): string[] {
  const all = Object.entries(g.goals);
  const missed = all.filter(([, goal]) => !goal.met);
  return [
    `goals: ${all.length - missed.length} of ${all.length} met${missed.length ? `; missed: ${missed.map(([name, goal]) => `${name} (${goal.goal})`).join(', ')}` : ''}`,
  ];
}
