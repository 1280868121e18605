/**
 * `npm run bench:proxy`: only the proxy figure of `npm run bench` (figure.ts), for iterating
 * on the gateway without the other figures' 90 seconds. Writes key "proxy" of $BENCH_OUT or
 * bench/results.json (every other key kept) and prints the same lines as the full bench.
 */
import { fileURLToPath } from 'node:url';
import { killAll, processesMentioning } from '../processes.js';
import { PROXY_DIR_PREFIX, proxyFigure } from './figure.js';
import { mergeProxy, proxyLines } from './report.js';
import { existingResults } from '../peer/results.js';

/** The repository's bench/results.json, whether we run from dist/ or another build folder. */
const DEFAULT_OUT = fileURLToPath(new URL('../../../bench/results.json', import.meta.url));

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<number> {
  const out = process.env.BENCH_OUT || DEFAULT_OUT;
  existingResults(out); // Fails now, not after the run, when it could not be merged.
  log('proxy: direct, mcpctl serve, mcp-hub, one after another…');
  const { figure, detail } = await proxyFigure(log);
  const leftovers = processesMentioning(PROXY_DIR_PREFIX);
  if (leftovers.length > 0) {
    log(`processes left behind, killing them: ${leftovers.join(' ')}`);
    killAll(leftovers);
  }
  mergeProxy(out, figure);
  const m = figure.machine;
  process.stdout.write(
    [
      `mcpctl proxy bench — ${figure.date}`,
      `${m.cpus} × ${m.model}, ${m.memoryGb} GiB, ${m.platform}, node ${m.node}, load ${m.loadAverage} at start`,
      '',
      ...proxyLines(figure, detail),
      '',
      `processes left behind: ${leftovers.length}`,
      `written to ${out} (key "proxy")`,
      '',
    ].join('\n'),
  );
  return leftovers.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`proxy bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    killAll(processesMentioning(PROXY_DIR_PREFIX));
    process.exit(1);
  },
);
