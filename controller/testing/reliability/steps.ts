/**
 * The steps of the model-based test: plain JSON-able objects (so a shrunk counterexample prints
 * as a readable list), their fast-check arbitraries, and what each one does to the model.
 */
import fc from 'fast-check';
import {
  LAYERS,
  NAMES,
  SCOPES,
  VARIANTS,
  approvalKey,
  type Layer,
  type Model,
  type ModelScope,
  type Name,
  type TrustRule,
} from './model.js';

export type Step =
  | {
      readonly kind: 'set';
      readonly scope: ModelScope;
      readonly name: Name;
      readonly variant: number;
    }
  | { readonly kind: 'remove'; readonly scope: ModelScope; readonly name: Name }
  /** `names: null` removes the list (absent = everyone for allowed); `[]` is kept as `[]`. */
  | { readonly kind: 'excluded'; readonly layer: Layer; readonly names: readonly Name[] | null }
  | { readonly kind: 'allowed'; readonly layer: Layer; readonly names: readonly Name[] | null }
  | { readonly kind: 'approve'; readonly name: Name }
  | { readonly kind: 'approveForSession'; readonly name: Name }
  | { readonly kind: 'reject'; readonly name: Name }
  | { readonly kind: 'trustEnabled'; readonly enabled: boolean }
  | { readonly kind: 'trustRule'; readonly rule: TrustRule }
  | { readonly kind: 'crash'; readonly name: Name }
  /** The clock passes every back-off window. */
  | { readonly kind: 'tick' };

/** One test case: the ceiling the session starts with, then the steps. */
export interface Scenario {
  readonly ceiling: readonly Name[] | null;
  readonly steps: readonly Step[];
}

const name = fc.constantFrom(...NAMES);
/**
 * Name lists. Uniform subsets would block most names most of the time, leaving little to
 * reconcile; so allowlists (and the ceiling) are mostly wide, with `[]` (deny-all) kept in, and
 * exclusions mostly name one server. Each list is absent half the time (`null`).
 */
const wideList = fc.oneof(
  { weight: 4, arbitrary: fc.subarray([...NAMES], { minLength: 3 }) },
  { weight: 1, arbitrary: fc.subarray([...NAMES], { maxLength: 2 }) },
);
const narrowList = fc.oneof(
  { weight: 3, arbitrary: fc.subarray([...NAMES], { maxLength: 1 }) },
  { weight: 1, arbitrary: fc.subarray([...NAMES]) },
);
const allowedList = fc.option(wideList, { nil: null, freq: 2 });
const excludedList = fc.option(narrowList, { nil: null, freq: 2 });
const layer = fc.constantFrom(...LAYERS);

export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  // Server edits are the bulk of real life; weight them up.
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('set' as const),
      scope: fc.constantFrom(...SCOPES),
      name,
      variant: fc.nat(VARIANTS.length - 1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('remove' as const),
      scope: fc.constantFrom(...SCOPES),
      name,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('excluded' as const), layer, names: excludedList }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('allowed' as const), layer, names: allowedList }),
  },
  // Approvals are what let gated servers run at all; without enough of them most names idle.
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('approve' as const), name }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('approveForSession' as const), name }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reject' as const), name }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('trustEnabled' as const), enabled: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('trustRule' as const),
      // Mostly trusting: an untrusted folder blocks every name, which exercises little else.
      rule: fc.constantFrom<TrustRule>('TRUST_FOLDER', 'TRUST_FOLDER', 'none', 'DO_NOT_TRUST'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('crash' as const), name }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const) }) },
);

export function scenarioArb(maxSteps: number): fc.Arbitrary<Scenario> {
  return fc.record({
    ceiling: allowedList,
    // size 'max': lengths spread over the whole 0..maxSteps range, not fast-check's small default.
    steps: fc.array(stepArb, { maxLength: maxSteps, size: 'max' }),
  });
}

/** What the session is expected to answer to a decision step. */
export type DecisionOutcome = 'ok' | 'UnknownServerError' | 'NotGatedError';

/** The outcome of approve / approve-for-session / reject on `name` in `model`. */
export function decisionOutcome(model: Model, n: Name): DecisionOutcome {
  const entry = model.desired().get(n);
  if (!entry) return 'UnknownServerError';
  return entry.scope === 'project' || entry.scope === 'workspace' ? 'ok' : 'NotGatedError';
}

/**
 * The model after `step`. A crash is applied by the caller (only a live server can crash);
 * the back-off rules are settled here for every other kind.
 */
export function applyStep(model: Model, step: Step): Model {
  const m = model.clone();
  switch (step.kind) {
    case 'set':
      m.servers[step.scope].set(step.name, step.variant);
      break;
    case 'remove':
      m.servers[step.scope].delete(step.name);
      break;
    case 'excluded':
      m.mcp[step.layer] = withList(m.mcp[step.layer], 'excluded', step.names);
      break;
    case 'allowed':
      m.mcp[step.layer] = withList(m.mcp[step.layer], 'allowed', step.names);
      break;
    case 'approve':
    case 'approveForSession':
    case 'reject': {
      if (decisionOutcome(m, step.name) !== 'ok') break;
      const entry = m.desired().get(step.name);
      if (!entry) break;
      const key = approvalKey(entry.config);
      if (step.kind === 'approveForSession') {
        const keys = m.sessionApprovals.get(step.name) ?? new Set<string>();
        keys.add(key);
        m.sessionApprovals.set(step.name, keys);
      } else {
        m.approvals.set(step.name, {
          key,
          status: step.kind === 'approve' ? 'approved' : 'rejected',
        });
        // A reject is never outvoted by an earlier approve-for-session.
        if (step.kind === 'reject') m.sessionApprovals.delete(step.name);
      }
      break;
    }
    case 'trustEnabled':
      m.trustEnabled = step.enabled;
      break;
    case 'trustRule':
      m.trustRule = step.rule;
      break;
    case 'crash':
      break;
    case 'tick':
      m.backoff.clear();
      break;
  }
  m.settleBackoff();
  return m;
}

function withList(
  lists: { allowed?: readonly Name[]; excluded?: readonly Name[] },
  key: 'allowed' | 'excluded',
  value: readonly Name[] | null,
): { allowed?: readonly Name[]; excluded?: readonly Name[] } {
  const next = { ...lists };
  if (value === null) delete next[key];
  else next[key] = [...value];
  return next;
}
