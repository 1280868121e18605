/**
 * Running the bench's sections one after another, each under a guard: one that fails (a server
 * that dropped its connection under load, a child that crashed) is recorded and printed as
 * failed, and the sections after it still run.
 *
 * Guarantees:
 * - runSections() never rejects because a section did: a section that throws gets
 *   `{ failed: "<message>" }` under each of its keys, one line saying it failed (with its
 *   title) where its lines would be, and its title in `failed`; every other section's
 *   figures and lines are as it returned them, in order. A section that guards figures of
 *   its own and names those that failed has them in `failed` too, so the run fails.
 * - The message is the error's first line (no stack), so results.json stays readable; the
 *   log gets the whole stack.
 */
import { messageOf } from '../api/index.js';

/** What results.json holds for a figure that could not be measured. */
export interface FailedFigure {
  readonly failed: string;
}

export function isFailed(value: unknown): value is FailedFigure {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { failed?: unknown }).failed === 'string'
  );
}

/** One error as a one-line message for results.json and the table. */
export function failureMessage(err: unknown): string {
  const text = messageOf(err);
  return text.split('\n')[0]?.trim() || 'failed without a message';
}

/** What a section measured: its figures by results.json key, and its lines of the table. */
export interface SectionOutput {
  readonly figures: Readonly<Record<string, unknown>>;
  readonly lines: readonly string[];
  /** Figures within it that failed on their own guard (e.g. one N of the scale figure). */
  readonly failedFigures?: readonly string[];
}

export interface BenchSection {
  /** What the log says before it runs, and the failed line names (e.g. "1/9 reload latency"). */
  readonly title: string;
  /** The results.json keys it fills (a failure puts `{ failed }` under each). */
  readonly keys: readonly string[];
  run(log: (line: string) => void): Promise<SectionOutput>;
}

export interface SectionsOutcome {
  readonly figures: Record<string, unknown>;
  readonly lines: string[];
  /** What failed, in order: a section's title, or `title: figure` for a figure within one. */
  readonly failed: string[];
}

/** The line of the table a failed figure prints. */
export function failedLine(title: string, message: string): string {
  return `${title}: FAILED — ${message}`;
}

export async function runSections(
  sections: readonly BenchSection[],
  log: (line: string) => void,
): Promise<SectionsOutcome> {
  const outcome: SectionsOutcome = { figures: {}, lines: [], failed: [] };
  for (const section of sections) {
    log(`${section.title}…`);
    try {
      const { figures, lines, failedFigures = [] } = await section.run(log);
      Object.assign(outcome.figures, figures);
      outcome.lines.push(...lines);
      for (const figure of failedFigures) outcome.failed.push(`${section.title}: ${figure}`);
    } catch (err) {
      const failed = failureMessage(err);
      log(`    failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      for (const key of section.keys) outcome.figures[key] = { failed } satisfies FailedFigure;
      outcome.lines.push(failedLine(section.title, failed));
      outcome.failed.push(section.title);
    }
  }
  return outcome;
}
