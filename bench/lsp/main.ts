/**
 * `npm run bench:lsp`: only the lsp figure of `npm run bench` (figure.ts). Writes key "lsp" of
 * $BENCH_OUT or bench/results.json (every other key kept) and prints the same lines as the full
 * bench.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { machine } from '../machine.js';
import { killAll, processesMentioning } from '../processes.js';
import { lspFigure, lspLines } from './figure.js';

const DEFAULT_OUT = fileURLToPath(new URL('../../../bench/results.json', import.meta.url));

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<number> {
  const out = process.env.BENCH_OUT || DEFAULT_OUT;
  const m = machine();
  log(`lsp bench on ${m.cpus} × ${m.model}, node ${m.node}, load ${m.loadAverage}`);
  const figure = await lspFigure(log);
  let previous: Record<string, unknown> = {};
  try {
    previous = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>;
  } catch {
    // No earlier results: start afresh.
  }
  writeFileSync(out, `${JSON.stringify({ ...previous, lsp: figure }, null, 2)}\n`);
  const leftovers = processesMentioning('mcpctl-peer-lsp-');
  if (leftovers.length > 0) killAll(leftovers);
  process.stdout.write(
    [
      ...lspLines(figure),
      '',
      `processes left behind: ${leftovers.length}`,
      `written to ${out} (key "lsp")`,
      '',
    ].join('\n'),
  );
  return leftovers.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`lsp bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    killAll(processesMentioning('mcpctl-peer-lsp-'));
    process.exit(1);
  },
);
