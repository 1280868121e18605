/**
 * `npm run bench:restart`: only the restart figure of `npm run bench` (figure.ts). Writes key
 * "restart" of $BENCH_OUT or bench/results.json (every other key kept) and prints the same
 * lines as the full bench.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machine } from '../machine.js';
import { killAll, processesMentioning } from '../processes.js';
import { restartFigure, restartLines } from './figure.js';

const DEFAULT_OUT = fileURLToPath(new URL('../../../bench/results.json', import.meta.url));

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<number> {
  const out = process.env.BENCH_OUT || DEFAULT_OUT;
  const m = machine();
  log(`restart bench on ${m.cpus} × ${m.model}, node ${m.node}, load ${m.loadAverage}`);
  const { figure, detail } = await restartFigure(log);
  let previous: Record<string, unknown> = {};
  try {
    previous = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
  } catch {
    // No earlier results: start afresh.
  }
  writeFileSync(out, `${JSON.stringify({ ...previous, restart: figure }, null, 2)}\n`);
  const leftovers = processesMentioning('mcpctl-peer-restart-');
  if (leftovers.length > 0) killAll(leftovers);
  process.stdout.write(
    [
      ...restartLines(figure, detail),
      '',
      `processes left behind: ${leftovers.length}`,
      `written to ${out} (key "restart")`,
      '',
    ].join('\n'),
  );
  return leftovers.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`restart bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    killAll(processesMentioning('mcpctl-peer-restart-'));
    process.exit(1);
  },
);
