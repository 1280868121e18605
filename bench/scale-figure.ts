/**
 * Figure 2 as the bench runs it: one child process per N (scale-child.ts), and for the largest
 * N five extra, uncounted edits under the V8 profiler, summarised so the output says where a
 * reload's CPU goes. Each N runs under its own guard: a child that fails is that row's
 * `{ servers, failed }` (sections.ts), and the larger N still run.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarizeFile, type HotSpot } from './profile-summary.js';
import type { ScaleDetail, ScaleRow } from './scale.js';
import { failureMessage, type FailedFigure } from './sections.js';

export const SCALE_SIZES = [10, 100, 1000, 10_000] as const;

const CHILD = fileURLToPath(new URL('./scale-child.js', import.meta.url));

export interface ScaleResult {
  readonly row: ScaleRow;
  readonly detail: ScaleDetail;
  /** Where the profiled edit's CPU went, when profiled. */
  readonly hot?: {
    /** Our own modules' functions by inclusive time: which of our code to look at. */
    readonly inclusive: readonly HotSpot[];
    /** Any function by self time: what the time is actually spent doing. */
    readonly self: readonly HotSpot[];
  };
}

/** One N that could not be measured. */
export interface FailedScaleRow extends FailedFigure {
  readonly servers: number;
}

export type ScaleOutcome = ScaleResult | FailedScaleRow;

export function isScaleResult(r: ScaleOutcome): r is ScaleResult {
  return 'row' in r;
}

function runChild(n: number, edits: number, profileFile?: string): Promise<ScaleResult> {
  return new Promise((resolve, reject) => {
    const args = [
      '--expose-gc',
      CHILD,
      String(n),
      String(edits),
      ...(profileFile ? [profileFile] : []),
    ];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`scale N=${n}: child exited with ${code}`));
        return;
      }
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as ScaleResult);
      } catch (err) {
        reject(new Error(`scale N=${n}: unreadable report ${JSON.stringify(out)}: ${String(err)}`));
      }
    });
  });
}

/** Our own modules: not a package, not the runtime, not the bench driving the edit. */
function ours(h: HotSpot): boolean {
  return /\s(api|informers|approvals|pool|reconcilers|controller)\/\S+:\d+$/.test(h.name);
}

export async function scaleFigure(
  onRow: (r: ScaleOutcome) => void = () => undefined,
): Promise<ScaleOutcome[]> {
  const results: ScaleOutcome[] = [];
  const profiling = process.env.BENCH_PROFILE !== '0';
  for (const n of SCALE_SIZES) {
    const largest = n === SCALE_SIZES[SCALE_SIZES.length - 1];
    const profileDir =
      largest && profiling ? mkdtempSync(join(tmpdir(), 'mcpctl-bench-prof-')) : undefined;
    const profileFile = profileDir ? join(profileDir, `scale-${n}.cpuprofile`) : undefined;
    try {
      const r = await runChild(n, largest ? 3 : 5, profileFile);
      const summary = profileFile ? summarizeFile(profileFile) : undefined;
      const hot = summary && {
        inclusive: summary.inclusive.filter(ours).slice(0, 10),
        self: summary.self.slice(0, 6),
      };
      const result = hot ? { ...r, hot } : r;
      results.push(result);
      onRow(result);
    } catch (err) {
      const failed: FailedScaleRow = { servers: n, failed: failureMessage(err) };
      results.push(failed);
      onRow(failed);
    } finally {
      if (profileDir) rmSync(profileDir, { recursive: true, force: true });
    }
  }
  return results;
}
