/**
 * Model-based reliability test (issue 8): random sequences of config edits, gating changes,
 * approvals, trust flips, crashes and clock ticks against a real Session, checked at every step
 * against a model that computes admission from DESIGN §4 on its own.
 *
 * Invariants (see invariants.ts): no acquire for a server that is not admitted at that moment;
 * at quiescence the live connections are exactly the admitted desired set with the right
 * connectionIds, conditions and tools agree; a server whose connectionId did not change is never
 * reconnected; a reload with nothing changed acquires nothing.
 *
 * RELIABILITY_RUNS (default 200) sets the number of sequences, RELIABILITY_STEPS (default 50)
 * their longest length, RELIABILITY_SEED replays a reported failure, RELIABILITY_SHRINK_MS bounds
 * shrinking. A failure prints the sequence at once, then the shrunk one with the broken
 * invariants. scripts/run-tests.mjs ends any test file after 2 minutes, so run a big one directly:
 * `RELIABILITY_RUNS=10000 node --test dist/controller/testing/reliability/model.test.js`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { newCounters, runScenario } from './runner.js';
import { scenarioArb, type Scenario } from './steps.js';
import { tempDir } from '../../../testing/temp-dir.js';
import { messageOf } from '../../../api/index.js';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return n;
}

const RUNS = intFromEnv('RELIABILITY_RUNS', 200);
const STEPS = intFromEnv('RELIABILITY_STEPS', 50);
const SEED = process.env.RELIABILITY_SEED;
/**
 * How long shrinking may go on after the first failure. The test runner ends a test file after
 * two minutes; the unshrunk sequence is printed at once anyway, so nothing is lost if it must
 * stop early, and candidates tried after the budget count as passing, so fast-check reports the
 * smallest failing sequence found by then.
 */
const SHRINK_BUDGET_MS = intFromEnv('RELIABILITY_SHRINK_MS', 45_000);

// Scales with the runs; on the suite as well, or its default timeout would apply to it.
const TIMEOUT = { timeout: Math.max(900_000, RUNS * 3000) };

describe('model-based: a session against the model of DESIGN §4', TIMEOUT, () => {
  it(
    `${RUNS} random sequences of up to ${STEPS} steps keep every invariant`,
    TIMEOUT,
    async (t) => {
      const baseDir = tempDir('mcpctl-reliability-');
      const base = baseDir.path;
      const counters = newCounters();
      let failedAt: number | undefined;
      const property = async (scenario: Scenario): Promise<void> => {
        if (failedAt !== undefined && Date.now() - failedAt > SHRINK_BUDGET_MS) return;
        try {
          await runScenario(scenario, counters, base);
        } catch (err) {
          if (failedAt === undefined) {
            failedAt = Date.now();
            process.stderr.write(
              `\nmodel-based test: this sequence failed; shrinking it for up to ${SHRINK_BUDGET_MS / 1000} s\n` +
                `${JSON.stringify(scenario)}\n${messageOf(err)}\n\n`,
            );
          }
          throw err;
        }
      };
      try {
        await fc.assert(fc.asyncProperty(scenarioArb(STEPS), property), {
          numRuns: RUNS,
          ...(SEED === undefined ? {} : { seed: Number(SEED) }),
        });
      } finally {
        baseDir.remove();
      }
      t.diagnostic(
        `sequences ${counters.scenarios}, steps ${counters.steps}, acquires ${counters.acquires}, ` +
          `crashes ${counters.crashes}, approval decisions ${counters.decisions}, ` +
          `live servers per step ${(counters.liveServerSteps / Math.max(1, counters.steps)).toFixed(2)}`,
      );
      assert.equal(counters.scenarios, RUNS, 'every sequence ran (no failure, no shrinking)');
      assert.ok(counters.acquires > 0, 'the sequences connected servers at all');
      assert.ok(counters.crashes > 0, 'some sequence crashed a live server');
    },
  );
});
