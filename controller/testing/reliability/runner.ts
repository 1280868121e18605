/**
 * Runs one scenario of the model-based test against a fresh world and throws, with the step
 * and every broken invariant, at the first step that goes wrong.
 *
 * Each step: move the model first (the checking pool judges every acquire against the model of
 * the step in progress), apply the step to the real system, wait until it is quiet, check; then
 * reload once more and check that a reload of an unchanged config acquires nothing (reconcile is
 * level-based, so a second pass has nothing to do).
 */
import { until } from '../../../testing/until.js';
import { Model } from './model.js';
import {
  acquireProblem,
  liveSnapshot,
  quiescenceProblems,
  reconnectProblems,
} from './invariants.js';
import { applyStep, decisionOutcome, type Scenario, type Step } from './steps.js';
import { BACKOFF_MS, createWorld, type World } from './world.js';

/** What the suite did, for the report. */
export interface Counters {
  scenarios: number;
  steps: number;
  acquires: number;
  crashes: number;
  decisions: number;
  /** Sum over steps of the servers live after the step: how much the sequences exercised. */
  liveServerSteps: number;
}

export function newCounters(): Counters {
  return { scenarios: 0, steps: 0, acquires: 0, crashes: 0, decisions: 0, liveServerSteps: 0 };
}

class StepFailure extends Error {
  constructor(index: number, step: Step | undefined, problems: readonly string[]) {
    const where =
      step === undefined ? 'at session start' : `after step ${index} ${JSON.stringify(step)}`;
    super(`${where}:\n  - ${problems.join('\n  - ')}`);
    this.name = 'StepFailure';
  }
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : String(err);
}

/** Applies `step` to the world; returns problems that are not state invariants. */
async function perform(world: World, before: Model, after: Model, step: Step): Promise<string[]> {
  const { session } = world;
  switch (step.kind) {
    case 'approve':
    case 'approveForSession':
    case 'reject': {
      const expected = decisionOutcome(before, step.name);
      let outcome = 'ok';
      try {
        // The user decides about the config shown now: its hash, read in the same step.
        const { hash } = session.kind('McpServer').subject(step.name);
        if (step.kind === 'reject') await session.kind('McpServer').reject(step.name, hash);
        else
          await session.kind('McpServer').approve(step.name, hash, {
            sessionOnly: step.kind === 'approveForSession',
          });
      } catch (err) {
        outcome = errorName(err);
      }
      await session.settled();
      return outcome === expected
        ? []
        : [`${step.kind} ${step.name}: got ${outcome}, expected ${expected}`];
    }
    case 'crash': {
      const id = before.expectedLive(step.name);
      if (id === undefined) return [];
      const server = [...world.servers].reverse().find((s) => s.ticket.connectionId === id);
      if (!server) return [`crash ${step.name}: no in-memory server for ${id}`];
      await server.crash();
      // Polled every millisecond: a run has many steps, and the model runs thousands of runs.
      const noticed = await until(
        'the crash to be noticed',
        () =>
          session.registry.get(step.name) === undefined &&
          session
            .kind('McpServer')
            .get(step.name)
            ?.status.conditions.find((c) => c.type === 'Ready')?.status !== 'True',
        { timeoutMs: 5000, intervalMs: 1 },
      ).then(
        () => true,
        () => false,
      );
      await session.settled();
      return noticed ? [] : [`crash ${step.name}: the session still shows it Ready after 5 s`];
    }
    case 'tick':
      world.advance(2 * BACKOFF_MS);
      world.write(after);
      await session.reload();
      return [];
    default:
      world.write(after);
      await session.reload();
      return [];
  }
}

/** The model after `step`, crashes included (only a server that is live can crash). */
function nextModel(model: Model, step: Step): Model {
  const next = applyStep(model, step);
  if (step.kind === 'crash') {
    const id = model.expectedLive(step.name);
    if (id !== undefined) next.backoff.set(step.name, id);
  }
  return next;
}

export async function runScenario(
  scenario: Scenario,
  counters: Counters,
  baseDir: string,
): Promise<void> {
  // The world writes the (empty) starting files; the model then knows where the session runs.
  const world = await createWorld(new Model(scenario.ceiling ?? undefined, ''), baseDir);
  let model = new Model(scenario.ceiling ?? undefined, world.session.workspace);
  const { session, pool } = world;
  pool.check = (ticket, holder) => acquireProblem(model, ticket, holder, session.id);
  counters.scenarios += 1;
  try {
    await session.settled();
    const atStart = quiescenceProblems(model, session, pool);
    if (atStart.length > 0) throw new StepFailure(-1, undefined, atStart);
    for (const [index, step] of scenario.steps.entries()) {
      const liveBefore = liveSnapshot(session);
      const mark = pool.acquires.length;
      const previous = model;
      model = nextModel(model, step);
      const problems = await perform(world, previous, model, step);
      const during = pool.acquires.slice(mark);
      problems.push(
        ...pool.violations.splice(0),
        ...quiescenceProblems(model, session, pool),
        ...reconnectProblems(liveBefore, liveSnapshot(session), during),
      );
      // Level-based: reconciling everything again with nothing changed must do nothing.
      const settledMark = pool.acquires.length;
      await session.reload();
      const extra = pool.acquires.slice(settledMark);
      if (extra.length > 0)
        problems.push(
          `a reload with nothing changed acquired ${extra.map((a) => a.name).join(', ')}`,
        );
      problems.push(...pool.violations.splice(0), ...quiescenceProblems(model, session, pool));
      if (problems.length > 0) throw new StepFailure(index, step, [...new Set(problems)]);
      counters.steps += 1;
      counters.liveServerSteps += session.registry.entries().size;
      if (step.kind === 'crash' && previous.expectedLive(step.name) !== undefined)
        counters.crashes += 1;
      if (step.kind === 'approve' || step.kind === 'approveForSession' || step.kind === 'reject')
        counters.decisions += 1;
    }
    counters.acquires += pool.acquires.length;
  } finally {
    await world.close();
  }
}
