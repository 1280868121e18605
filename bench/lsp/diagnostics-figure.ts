/**
 * The diagnostics figure (issue 37, "Diagnostics"): how soon an agent that wrote a file learns
 * what the language server says of it, through mcpctl's own client path (lsp/'s LspConnection
 * and its `diagnostics` question, the code the daemon runs), today's rule against the new one,
 * in the same run, on the lsp figure's generated TypeScript project (typescript-language-server
 * 5.3 on TypeScript 6.0).
 *
 * - today: the server's publishes, read by a 200 ms quiet time (diagnostics.ts rule 4, as it
 *   was the only rule for this server: `diagnosticsServerCommand: false`); new: the default
 *   rules (rule 2, pulled through the server's tsserver command).
 * - Each side has its own server on its own copy of the project, both warm (the project
 *   loaded, one round untimed). Each round writes a type error (TS2322) into the middle module
 *   and asks until the answer reports it, then writes the fix back and asks until no error is
 *   left; the time runs from the write to the answer that is right, and a round counts as right
 *   on the first ask when the first answer was. The sides take turns (which goes first
 *   alternates), so both see the same machine.
 * - Goals: the new rule's medians ≤ GOAL_RATIO × today's, for the error and for the fix, and
 *   every round right on the first ask.
 *
 * Guarantees: every process it starts carries its folder in its command line (the server's main
 * module through a link there) and is ended before it returns; the folder is removed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LspConnection, type LspServerOptions } from '../../lsp/connection.js';
import { diagnostics, type DiagnosticsView } from '../../lsp/requests.js';
import { runDir, type RunDir } from '../peer/system.js';
import { killAll, processesMentioning } from '../processes.js';
import { median, round } from '../stats.js';
import {
  initializationOptions,
  PROJECT_FILES,
  serverMain,
  writeGeneratedProject,
} from './figure.js';

export const DIAGNOSTICS_ROUNDS = 10;
export const GOAL_RATIO = 0.8;
/** One ask's bound, and a round's: a side that never gets it right fails the figure. */
const ASK_TIMEOUT_MS = 20_000;
const ROUND_TIMEOUT_MS = 60_000;

/** One side's round: ms from the write to the right answer, and how many asks it took. */
export interface DiagnosticsRound {
  readonly errorMs: number;
  readonly errorAsks: number;
  readonly fixMs: number;
  readonly fixAsks: number;
}

/** results.json's `lspDiagnostics`. */
export interface LspDiagnosticsFigure {
  readonly date: string;
  readonly projectFiles: number;
  readonly rounds: number;
  /** Medians over the rounds, ms: from the write to the answer that reports the error. */
  readonly errorReportedTodayMs: number;
  readonly errorReportedMs: number;
  readonly errorRatio: number;
  /** Medians, ms: from the fix's write to the answer with no error left. */
  readonly fixClearedTodayMs: number;
  readonly fixClearedMs: number;
  readonly fixRatio: number;
  /** Rounds whose first ask was right, for the error and for the fix, of `rounds`. */
  readonly firstAskToday: { readonly error: number; readonly fix: number };
  readonly firstAsk: { readonly error: number; readonly fix: number };
  readonly today: readonly DiagnosticsRound[];
  readonly now: readonly DiagnosticsRound[];
  readonly goals: {
    readonly errorRatio: { readonly max: number; readonly met: boolean };
    readonly fixRatio: { readonly max: number; readonly met: boolean };
    readonly firstAsk: { readonly rounds: number; readonly met: boolean };
  };
}

/** Where the error goes: the middle module of the chain. */
const TARGET = `src/mod${Math.floor(PROJECT_FILES / 2)}.ts`;

interface Side {
  readonly conn: LspConnection;
  readonly workspace: string;
  /** The module as generated: the fix writes it back. */
  readonly clean: string;
}

function options(dir: RunDir, workspace: string, today: boolean): LspServerOptions {
  return {
    name: today ? 'typescript-today' : 'typescript',
    command: process.execPath,
    args: [serverMain(dir), '--stdio'],
    workspaceFolder: workspace,
    extensionToLanguage: { '.ts': 'typescript' },
    initializationOptions: initializationOptions(),
    startupTimeoutMs: 120_000,
    requestTimeoutMs: 120_000,
    // Today's rule: the publishes, read by the 200 ms quiet time (the default settle).
    ...(today ? { diagnosticsServerCommand: false } : {}),
  };
}

async function openSide(dir: RunDir, name: string, today: boolean): Promise<Side> {
  const workspace = join(dir.root, name);
  writeGeneratedProject(workspace, PROJECT_FILES);
  const conn = new LspConnection(options(dir, workspace, today));
  await conn.open();
  return { conn, workspace, clean: readFileSync(join(workspace, TARGET), 'utf8') };
}

const errors = (view: DiagnosticsView) =>
  view.state === 'current' ? view.diagnostics.filter((d) => d.severity === 'error') : undefined;

/** Writes `text` and asks until `right`: the ms from the write, and the asks it took. */
async function untilRight(
  side: Side,
  text: string,
  right: (view: DiagnosticsView) => boolean,
): Promise<{ ms: number; asks: number }> {
  writeFileSync(join(side.workspace, TARGET), text);
  const t0 = performance.now();
  for (let asks = 1; ; asks += 1) {
    const view = await diagnostics(side.conn, { file: TARGET }, { timeoutMs: ASK_TIMEOUT_MS });
    if (right(view)) return { ms: performance.now() - t0, asks };
    if (performance.now() - t0 > ROUND_TIMEOUT_MS)
      throw new Error(`${side.conn.name}: no right answer in ${ROUND_TIMEOUT_MS} ms`);
  }
}

/** One round of one side: the error written and reported, then the fix written and cleared. */
async function roundOf(side: Side, r: number): Promise<DiagnosticsRound> {
  const broken = `${side.clean}export const broken: number = 'round ${r}';\n`;
  const line = side.clean.split('\n').length;
  const error = await untilRight(side, broken, (view) =>
    (errors(view) ?? []).some((d) => d.code === 2322 && d.line === line),
  );
  const fix = await untilRight(side, side.clean, (view) => errors(view)?.length === 0);
  return { errorMs: error.ms, errorAsks: error.asks, fixMs: fix.ms, fixAsks: fix.asks };
}

function firstAsks(rounds: readonly DiagnosticsRound[]): { error: number; fix: number } {
  return {
    error: rounds.filter((r) => r.errorAsks === 1).length,
    fix: rounds.filter((r) => r.fixAsks === 1).length,
  };
}

const rounded = (r: DiagnosticsRound): DiagnosticsRound => ({
  ...r,
  errorMs: round(r.errorMs),
  fixMs: round(r.fixMs),
});

export async function lspDiagnosticsFigure(
  log: (line: string) => void,
  rounds = DIAGNOSTICS_ROUNDS,
): Promise<LspDiagnosticsFigure> {
  const dir = runDir('lsp-diagnostics');
  const sides: Side[] = [];
  try {
    const today = await openSide(dir, 'today', true);
    sides.push(today);
    const now = await openSide(dir, 'now', false);
    sides.push(now);
    // Warm: the project loaded and one round untimed, on both.
    for (const side of sides) await roundOf(side, -1);
    const byToday: DiagnosticsRound[] = [];
    const byNow: DiagnosticsRound[] = [];
    for (let r = 0; r < rounds; r += 1) {
      const order = r % 2 === 0 ? [today, now] : [now, today];
      for (const side of order) (side === today ? byToday : byNow).push(await roundOf(side, r));
      const t = byToday.at(-1)!;
      const n = byNow.at(-1)!;
      log(
        `    round ${r + 1}: error ${round(t.errorMs)} → ${round(n.errorMs)} ms, fix ${round(t.fixMs)} → ${round(n.fixMs)} ms (asks today ${t.errorAsks}/${t.fixAsks}, new ${n.errorAsks}/${n.fixAsks})`,
      );
    }
    const errorToday = median(byToday.map((r) => r.errorMs));
    const errorNow = median(byNow.map((r) => r.errorMs));
    const fixToday = median(byToday.map((r) => r.fixMs));
    const fixNow = median(byNow.map((r) => r.fixMs));
    const errorRatio = errorNow / errorToday;
    const fixRatio = fixNow / fixToday;
    const firstAsk = firstAsks(byNow);
    return {
      date: new Date().toISOString(),
      projectFiles: PROJECT_FILES,
      rounds,
      errorReportedTodayMs: round(errorToday),
      errorReportedMs: round(errorNow),
      errorRatio: round(errorRatio),
      fixClearedTodayMs: round(fixToday),
      fixClearedMs: round(fixNow),
      fixRatio: round(fixRatio),
      firstAskToday: firstAsks(byToday),
      firstAsk,
      today: byToday.map(rounded),
      now: byNow.map(rounded),
      goals: {
        errorRatio: { max: GOAL_RATIO, met: errorRatio <= GOAL_RATIO },
        fixRatio: { max: GOAL_RATIO, met: fixRatio <= GOAL_RATIO },
        firstAsk: {
          rounds,
          met: firstAsk.error === rounds && firstAsk.fix === rounds,
        },
      },
    };
  } finally {
    for (const side of sides) await side.conn.close();
    const left = processesMentioning(dir.root);
    if (left.length > 0) killAll(left);
    dir.remove();
  }
}

export function lspDiagnosticsLines(f: LspDiagnosticsFigure): string[] {
  const mark = (met: boolean) => (met ? 'met' : 'MISSED');
  return [
    `  diagnostics (issue 37), a type error written into a module of the ${f.projectFiles}-file project and fixed, ${f.rounds} rounds, medians:`,
    `    error reported: today ${f.errorReportedTodayMs} ms, new ${f.errorReportedMs} ms: ${f.errorRatio}× (goal ≤ ${f.goals.errorRatio.max}×, ${mark(f.goals.errorRatio.met)})`,
    `    fix cleared: today ${f.fixClearedTodayMs} ms, new ${f.fixClearedMs} ms: ${f.fixRatio}× (goal ≤ ${f.goals.fixRatio.max}×, ${mark(f.goals.fixRatio.met)})`,
    `    right on the first ask: new ${f.firstAsk.error}/${f.rounds} errors, ${f.firstAsk.fix}/${f.rounds} fixes; today ${f.firstAskToday.error}/${f.rounds}, ${f.firstAskToday.fix}/${f.rounds} (goal every round, ${mark(f.goals.firstAsk.met)})`,
  ];
}
