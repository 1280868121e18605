/**
 * What each `npm run bench:<section>` does around its figure: one section of `npm run bench`
 * run alone, its key merged into $BENCH_OUT or bench/results.json (every other key kept), the
 * same lines as the full bench printed, and every process it left behind reported and killed.
 *
 * Guarantees: an unreadable results file fails before the run, not after; exit 0 only when
 * the figure ran and nothing was left behind. A figure that throws runs under the full
 * bench's guard (sections.ts): its key gets `{ "failed": "<message>" }`, a FAILED line is
 * printed, and the run exits 1; anything else failing kills what its folder prefix names.
 */
import { fileURLToPath } from 'node:url';
import { benchGoals } from './goals.js';
import { existingResults, mergeResultKey } from './peer/results.js';
import { killAll, processesMentioning } from './processes.js';
import { runSections } from './sections.js';

/** The repository's bench/results.json, whether we run from dist/ or another build folder. */
const DEFAULT_OUT = fileURLToPath(new URL('../../bench/results.json', import.meta.url));

export interface Section<F> {
  /** Its key in results.json, and its name in messages. */
  readonly key: string;
  /** What the command line of every process it starts carries (its temp folders' prefix). */
  readonly processPrefix: string;
  /** Runs the figure; `lines` are what the full bench prints for it. */
  run(log: (line: string) => void): Promise<{ readonly figure: F; readonly lines: string[] }>;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main<F>(section: Section<F>): Promise<number> {
  const out = process.env.BENCH_OUT || DEFAULT_OUT;
  existingResults(out); // Fails now, not after the run, when it could not be merged.
  const outcome = await runSections(
    [
      {
        title: section.key,
        keys: [section.key],
        async run(say) {
          const { figure, lines } = await section.run(say);
          return { figures: { [section.key]: figure }, lines };
        },
      },
    ],
    log,
  );
  const leftovers = processesMentioning(section.processPrefix);
  if (leftovers.length > 0) {
    log(`processes left behind, killing them: ${leftovers.join(' ')}`);
    killAll(leftovers);
  }
  mergeResultKey(out, section.key, outcome.figures[section.key]);
  // The goals of every figure in the file, this one's new.
  mergeResultKey(out, 'goals', benchGoals(existingResults(out)));
  process.stdout.write(
    [
      ...outcome.lines,
      '',
      `processes left behind: ${leftovers.length}`,
      `written to ${out} (key "${section.key}")`,
      '',
    ].join('\n'),
  );
  return leftovers.length === 0 && outcome.failed.length === 0 ? 0 : 1;
}

/** Runs `section` as the whole process and exits with its outcome. */
export function runSection<F>(section: Section<F>): void {
  main(section).then(
    (code) => process.exit(code),
    (err: unknown) => {
      log(
        `${section.key} bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      killAll(processesMentioning(section.processPrefix));
      process.exit(1);
    },
  );
}
