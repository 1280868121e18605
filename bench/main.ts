/**
 * `npm run bench` (issue 8): the five figures, each beside its baseline from the same run,
 * the proxy figure (issue 14: a tool call direct, through mcpctl serve and through
 * mcp-hub; `npm run bench:proxy` runs only that one), the http figure (issue 26: agent
 * sessions through serve and over HTTP) and the restart figure (issue 25: the daemon killed
 * under an agent; `npm run bench:restart`) and the lsp figure (issue 24: one warm language
 * server per workspace for every agent; `npm run bench:lsp`), printed as a table with the machine, and written
 * to $BENCH_OUT or bench/results.json.
 *
 * Every process a figure starts is ended by that figure; at the end, anything still running
 * with a bench folder in its command line is reported and killed, and the run fails.
 * BENCH_PROFILE=0 skips the profiled extra edits of the largest scale row.
 */
import { fileURLToPath } from 'node:url';
import { gapFigures } from './gap.js';
import { httpFigure } from './http.js';
import { machine } from './machine.js';
import { poolFigure } from './pool-sharing.js';
import { proxyFigure } from './proxy/figure.js';
import { killAll, processesMentioning } from './processes.js';
import { reloadFigure } from './reload.js';
import { restartFigure } from './restart/figure.js';
import { lspFigure } from './lsp/figure.js';
import { table, writeResults, type Results } from './report.js';
import { scaleFigure } from './scale-figure.js';

/** The repository's bench/results.json, whether we run from dist/ or another build folder. */
const DEFAULT_OUT = fileURLToPath(new URL('../../bench/results.json', import.meta.url));

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<number> {
  const started = performance.now();
  const m = machine();
  log(`bench on ${m.cpus} cpus, node ${m.node}, load ${m.loadAverage}`);

  log('1/9 reload latency (stdio fixture, real watcher and debounce)…');
  const reload = await reloadFigure();
  log(`    ${reload.figure.reloadMs} ms vs raw connect ${reload.figure.rawConnectMs} ms`);

  log('2/9 scale (in-memory servers, one child process per N)…');
  const scale = await scaleFigure((r) =>
    log(`    N=${r.row.servers}: ${r.row.cpuMs} ms cpu, ${r.row.connects}/${r.row.disconnects}`),
  );

  log('3-4/9 tool gaps (20 servers × 50 edits: RollingUpdate, Recreate, restart-all)…');
  const gap = await gapFigures();

  log('5/9 pool sharing (10 sessions × 5 stdio servers, pooled and a pool per session)…');
  const pool = await poolFigure();

  log('6/9 proxy (echo calls direct, through mcpctl serve, through mcp-hub)…');
  const proxy = await proxyFigure(log);

  log('7/9 http (20 agent sessions through serve and over HTTP: processes, echo calls)…');
  const http = await httpFigure(log);
  log('8/9 restart (the daemon SIGKILLed under an agent with 10 servers)…');
  const restart = await restartFigure(log);
  log('9/9 lsp (a TypeScript project of 300 files: cold vs warm, per request, 5 agents, edits)…');
  const lsp = await lspFigure(log);

  const leftovers = processesMentioning('mcpctl-bench-');
  if (leftovers.length > 0) {
    log(`processes left behind, killing them: ${leftovers.join(' ')}`);
    killAll(leftovers);
  }

  const results: Results = {
    machine: { cpus: m.cpus, node: m.node },
    reload: reload.figure,
    scale: scale.map((s) => s.row),
    gapUnchanged: gap.figures.gapUnchanged,
    gapChanged: gap.figures.gapChanged,
    pool: pool.figure,
    proxy: proxy.figure,
    http,
    restart: restart.figure,
    lsp,
  };
  const out = process.env.BENCH_OUT || DEFAULT_OUT;
  writeResults(results, out);
  const seconds = Math.round((performance.now() - started) / 1000);
  process.stdout.write(
    `${table(results, {
      machine: m,
      reload: reload.detail,
      scale,
      gap: gap.detail,
      pool: pool.detail,
      proxy: proxy.detail,
      restart: restart.detail,
      seconds,
      leftovers: leftovers.length,
    })}\n\nwritten to ${out}\n`,
  );
  return leftovers.length === 0 ? 0 : 1;
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
