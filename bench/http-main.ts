/**
 * `npm run bench:http`: only the http figure of `npm run bench` (http.ts), for iterating on
 * the HTTP endpoint without the other figures. Writes key "http" of $BENCH_OUT or
 * bench/results.json (every other key kept) and prints the same lines as the full bench.
 * `PROXY_CALLS=warmup,sequential,parallel` sets the load as for the proxy figure.
 */
import { fileURLToPath } from 'node:url';
import { httpFigure, httpLines } from './http.js';
import { machine } from './machine.js';
import { existingResults, mergeResultKey } from './peer/results.js';
import { killAll, processesMentioning } from './processes.js';

/** The repository's bench/results.json, whether we run from dist/ or another build folder. */
const DEFAULT_OUT = fileURLToPath(new URL('../../bench/results.json', import.meta.url));

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<number> {
  const out = process.env.BENCH_OUT || DEFAULT_OUT;
  existingResults(out); // Fails now, not after the run, when it could not be merged.
  const m = machine();
  log(`http bench on ${m.cpus} × ${m.model}, node ${m.node}, load ${m.loadAverage}`);
  const figure = await httpFigure(log);
  const leftovers = processesMentioning('mcpctl-bench-http-');
  if (leftovers.length > 0) {
    log(`processes left behind, killing them: ${leftovers.join(' ')}`);
    killAll(leftovers);
  }
  mergeResultKey(out, 'http', figure);
  process.stdout.write(
    [
      ...httpLines(figure),
      '',
      `processes left behind: ${leftovers.length}`,
      `written to ${out} (key "http")`,
      '',
    ].join('\n'),
  );
  return leftovers.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`http bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    killAll(processesMentioning('mcpctl-bench-http-'));
    process.exit(1);
  },
);
