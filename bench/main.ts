/**
 * `npm run bench` (issue 8): the five figures, each beside its baseline from the same run,
 * the proxy figure (issue 14: a tool call direct, through mcpctl serve and through
 * mcp-hub; `npm run bench:proxy` runs only that one), the http figure (issue 26: agent
 * sessions through serve and over HTTP) and the restart figure (issue 25: the daemon killed
 * under an agent; `npm run bench:restart`) and the lsp figure (issue 24: one warm language
 * server per workspace for every agent; `npm run bench:lsp`), with its diagnostics figure (issue
 * 37: a new error and its fix reported, today's rule against the new one; `npm run bench:lsp --
 * diagnostics`) and the serve figure (issue 37: an
 * idle serve's RSS; `npm run bench:serve`), printed as a table with the machine, and written
 * to $BENCH_OUT or bench/results.json.
 *
 * Every figure runs under a guard (sections.ts): one that throws is `{ "failed": "<message>" }`
 * in results.json and a FAILED line in the table, the others still run, results.json is
 * written all the same, and the run exits 1.
 *
 * Every process a figure starts is ended by that figure; at the end, anything still running
 * with a bench folder in its command line is reported and killed, and the run fails.
 * BENCH_PROFILE=0 skips the profiled extra edits of the largest scale row.
 */
import { fileURLToPath } from 'node:url';
import { gapFigures } from './gap.js';
import { benchGoals, goalLines } from './goals.js';
import { httpFigure, httpLines } from './http.js';
import { machine } from './machine.js';
import { poolFigure } from './pool-sharing.js';
import { proxyFigure } from './proxy/figure.js';
import { proxyLines } from './proxy/report.js';
import { killAll, processesMentioning } from './processes.js';
import { reloadFigure } from './reload.js';
import { restartFigure, restartLines } from './restart/figure.js';
import { lspDiagnosticsFigure, lspDiagnosticsLines } from './lsp/diagnostics-figure.js';
import { lspFigure, lspLines } from './lsp/figure.js';
import { gapLines, poolLines, reloadLines, scaleLines, tableHead, writeResults } from './report.js';
import { isScaleResult, scaleFigure } from './scale-figure.js';
import { failedLine, failureMessage, runSections, type BenchSection } from './sections.js';
import { serveRssFigure, serveRssLines } from './serve-rss.js';
import { lazyFigure, lazyLines } from './lazy.js';

/** The repository's bench/results.json, whether we run from dist/ or another build folder. */
const DEFAULT_OUT = fileURLToPath(new URL('../../bench/results.json', import.meta.url));

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** The ten figures in order; each fills its keys of results.json and prints its lines. */
const SECTIONS: readonly BenchSection[] = [
  {
    title: '1/11 reload latency (stdio fixture, real watcher and debounce)',
    keys: ['reload'],
    async run(say) {
      const r = await reloadFigure();
      say(`    ${r.figure.reloadMs} ms vs raw connect ${r.figure.rawConnectMs} ms`);
      return { figures: { reload: r.figure }, lines: reloadLines(r.figure, r.detail) };
    },
  },
  {
    title: '2/11 scale (in-memory servers, one child process per N)',
    keys: ['scale'],
    async run(say) {
      const scale = await scaleFigure((r) =>
        say(
          isScaleResult(r)
            ? `    N=${r.row.servers}: ${r.row.cpuMs} ms cpu, ${r.row.connects}/${r.row.disconnects}`
            : `    N=${r.servers}: failed: ${r.failed}`,
        ),
      );
      return {
        figures: { scale: scale.map((s) => (isScaleResult(s) ? s.row : s)) },
        lines: scaleLines(scale),
        failedFigures: scale.flatMap((s) => (isScaleResult(s) ? [] : [`N=${s.servers}`])),
      };
    },
  },
  {
    title: '3-4/11 tool gaps (20 servers × 50 edits: RollingUpdate, Recreate, restart-all)',
    keys: ['gapUnchanged', 'gapChanged'],
    async run() {
      const gap = await gapFigures();
      return { figures: { ...gap.figures }, lines: gapLines(gap.figures, gap.detail) };
    },
  },
  {
    title: '5/11 pool sharing (10 sessions × 5 stdio servers, pooled and a pool per session)',
    keys: ['pool'],
    async run() {
      const pool = await poolFigure();
      return { figures: { pool: pool.figure }, lines: poolLines(pool.figure, pool.detail) };
    },
  },
  {
    title: '6/11 proxy (echo calls direct, through mcpctl serve, through mcp-hub)',
    keys: ['proxy'],
    async run(say) {
      const proxy = await proxyFigure(say);
      return { figures: { proxy: proxy.figure }, lines: proxyLines(proxy.figure, proxy.detail) };
    },
  },
  {
    title: '7/11 http (20 agent sessions through serve and over HTTP: processes, echo calls)',
    keys: ['http'],
    async run(say) {
      const http = await httpFigure(say);
      return { figures: { http }, lines: httpLines(http) };
    },
  },
  {
    title: '8/11 restart (the daemon SIGKILLed under an agent with 10 servers)',
    keys: ['restart'],
    async run(say) {
      const restart = await restartFigure(say);
      return {
        figures: { restart: restart.figure },
        lines: restartLines(restart.figure, restart.detail),
      };
    },
  },
  {
    title:
      '9/11 lsp (a TypeScript project of 300 files: cold vs warm, per request, 5 agents, edits, diagnostics)',
    keys: ['lsp', 'lspDiagnostics'],
    async run(say) {
      const lsp = await lspFigure(say);
      // The diagnostics figure under its own guard: its failure keeps the lsp figure.
      try {
        const lspDiagnostics = await lspDiagnosticsFigure(say);
        return {
          figures: { lsp, lspDiagnostics },
          lines: ['', ...lspLines(lsp), ...lspDiagnosticsLines(lspDiagnostics)],
        };
      } catch (err) {
        const failed = failureMessage(err);
        say(
          `    diagnostics failed: ${err instanceof Error ? (err.stack ?? err.message) : failed}`,
        );
        return {
          figures: { lsp, lspDiagnostics: { failed } },
          lines: ['', ...lspLines(lsp), failedLine('  diagnostics', failed)],
          failedFigures: ['diagnostics'],
        };
      }
    },
  },
  {
    title: '10/11 serve (an idle mcpctl serve: RSS, beside its modules and a bare node)',
    keys: ['serve'],
    async run(say) {
      const serve = await serveRssFigure(say);
      return { figures: { serve }, lines: serveRssLines(serve) };
    },
  },
  {
    title:
      '11/11 lazy (30 servers: a new agent lists from warm catalogs; a first call to an idle one)',
    keys: ['lazy'],
    async run(say) {
      const lazy = await lazyFigure(say);
      return { figures: { lazy }, lines: lazyLines(lazy) };
    },
  },
];

async function main(): Promise<number> {
  const started = performance.now();
  const m = machine();
  log(`bench on ${m.cpus} cpus, node ${m.node}, load ${m.loadAverage}`);
  const outcome = await runSections(SECTIONS, log);

  const leftovers = processesMentioning('mcpctl-bench-');
  if (leftovers.length > 0) {
    log(`processes left behind, killing them: ${leftovers.join(' ')}`);
    killAll(leftovers);
  }

  // Written whatever failed: the figures that were measured are kept.
  const out = process.env.BENCH_OUT || DEFAULT_OUT;
  const goals = benchGoals(outcome.figures);
  writeResults({ machine: { cpus: m.cpus, node: m.node }, ...outcome.figures, goals }, out);
  const seconds = Math.round((performance.now() - started) / 1000);
  const failed = outcome.failed.length === 0 ? '' : `; FAILED: ${outcome.failed.join(', ')}`;
  process.stdout.write(
    [
      ...tableHead(m),
      ...outcome.lines,
      '',
      ...goalLines(goals),
      `${seconds} s in all; processes left behind: ${leftovers.length}${failed}`,
      '',
      `written to ${out}`,
      '',
    ].join('\n'),
  );
  return leftovers.length === 0 && outcome.failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    const leftovers = processesMentioning('mcpctl-bench-');
    killAll(leftovers);
    process.exit(1);
  },
);
