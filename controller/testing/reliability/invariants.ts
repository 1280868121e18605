/**
 * The invariants of the model-based test, as functions that list what is wrong (an empty list
 * means all hold). Each message names the server and both sides, so a shrunk counterexample
 * says what broke without a debugger.
 */
import { canonicalJson, connectionIdOf, type McpServer } from '../../../api/index.js';
import type { AdmissionTicket } from '../../../pool/ticket.js';
import type { Holder } from '../../../pool/types.js';
import type { Session } from '../../session.js';
import { NAMES, expectedTools, type Model, type Name } from './model.js';
import type { AcquireRecord, CheckingPool } from './world.js';

function isName(name: string): name is Name {
  return (NAMES as readonly string[]).includes(name);
}

/** Checked at the moment of every acquire: admitted now, for the right config, not backing off. */
export function acquireProblem(
  model: Model,
  ticket: AdmissionTicket,
  holder: Holder,
  sessionId: string,
): string | undefined {
  const name = ticket.name;
  if (holder.sessionId !== sessionId || ticket.sessionId !== sessionId)
    return `acquire of ${name} for session ${ticket.sessionId}/${holder.sessionId}, not ${sessionId}`;
  if (!isName(name)) return `acquire of unknown server ${name}`;
  const verdict = model.verdict(name);
  if (verdict === undefined) return `acquire of ${name}, which is not configured`;
  if (!verdict.admitted)
    return `acquire of ${name} while it is not admitted (${verdict.reasons.join('|')})`;
  const entry = model.desired().get(name);
  const expected = entry ? connectionIdOf(name, entry.config, model.workspace) : undefined;
  if (ticket.connectionId !== expected)
    return `acquire of ${name} as ${ticket.connectionId}, but its config is ${expected}`;
  if (model.backoff.has(name)) return `acquire of ${name} inside its back-off window`;
  return undefined;
}

function condition(server: McpServer | undefined, type: string): string | undefined {
  const c = server?.status.conditions.find((x) => x.type === type);
  return c ? `${c.status}/${c.reason}` : undefined;
}

/** At quiescence: objects, conditions, registry and pool all say what the model says. */
export function quiescenceProblems(model: Model, session: Session, pool: CheckingPool): string[] {
  const problems: string[] = [];
  const p = (text: string): void => {
    problems.push(text);
  };
  const desired = model.desired();
  const listed = session
    .kind('McpServer')
    .list()
    .map((s) => s.metadata.name);
  const wanted = [...desired.keys()].sort();
  if (canonicalJson(listed) !== canonicalJson(wanted))
    p(`servers() lists ${canonicalJson(listed)}, the config has ${canonicalJson(wanted)}`);

  const liveIds: string[] = [];
  for (const name of NAMES) {
    const res = session.kind('McpServer').get(name, { showSecrets: true });
    const entry = session.registry.get(name);
    const d = desired.get(name);
    if (!d) {
      if (res) p(`${name}: not configured, but get() returns it`);
      if (entry) p(`${name}: not configured, but has tools in the registry`);
      continue;
    }
    if (!res) {
      p(`${name}: configured (${d.scope}), but get() returns nothing`);
      continue;
    }
    if (canonicalJson(res.spec) !== canonicalJson(d.config))
      p(`${name}: spec ${canonicalJson(res.spec)}, the config is ${canonicalJson(d.config)}`);
    const scope = res.metadata.annotations?.['mcpctl.dev/scope'];
    if (scope !== d.scope) p(`${name}: scope ${scope}, the config says ${d.scope}`);

    const verdict = model.verdict(name);
    const admitted = condition(res, 'Admitted');
    const okAdmitted = (verdict?.reasons ?? []).map(
      (r) => `${verdict?.admitted ? 'True' : 'False'}/${r}`,
    );
    if (admitted === undefined || !okAdmitted.includes(admitted))
      p(`${name}: Admitted ${admitted}, expected ${okAdmitted.join(' or ')}`);

    const ready = condition(res, 'Ready');
    const live = model.expectedLive(name);
    if (live !== undefined) {
      liveIds.push(live);
      if (res.status.connectionId !== live)
        p(`${name}: connectionId ${res.status.connectionId}, expected ${live}`);
      if (ready !== 'True/Connected') p(`${name}: Ready ${ready}, expected True/Connected`);
      const upToDate = condition(res, 'UpToDate');
      if (upToDate !== 'True/Current') p(`${name}: UpToDate ${upToDate}, expected True/Current`);
      if (entry?.connectionId !== live)
        p(`${name}: registry serves ${entry?.connectionId}, expected ${live}`);
      const tools = (entry?.tools ?? []).map((t) => t.name);
      const expected = expectedTools(d.config);
      if (canonicalJson(tools) !== canonicalJson(expected))
        p(`${name}: tools ${canonicalJson(tools)}, expected ${canonicalJson(expected)}`);
    } else {
      if (res.status.connectionId !== undefined)
        p(`${name}: must be down, but shows connectionId ${res.status.connectionId}`);
      if (entry) p(`${name}: must be down, but has tools in the registry`);
      const okReady = verdict?.admitted
        ? ['False/ConnectFailed', 'False/CrashLoopBackOff']
        : ['False/NotAdmitted'];
      if (ready === undefined || !okReady.includes(ready))
        p(`${name}: Ready ${ready}, expected ${okReady.join(' or ')}`);
    }
  }

  const entries = pool.stats();
  const keys = entries.map((e) => e.key).sort();
  if (canonicalJson(keys) !== canonicalJson(liveIds.sort()))
    p(`pool holds ${canonicalJson(keys)}, the admitted set is ${canonicalJson(liveIds)}`);
  for (const e of entries) {
    if (e.state !== 'ready') p(`pool entry ${e.key} is ${e.state}, not ready`);
    if (canonicalJson(e.refs) !== canonicalJson([session.id]))
      p(`pool entry ${e.key} is held by ${canonicalJson(e.refs)}`);
  }
  return problems;
}

/** name → connectionId of every server that serves tools now. */
export function liveSnapshot(session: Session): Map<string, string> {
  return new Map([...session.registry.entries()].map(([name, e]) => [name, e.connectionId]));
}

/** A server live before and after a step with the same connectionId was never re-acquired. */
export function reconnectProblems(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  acquires: readonly AcquireRecord[],
): string[] {
  const problems: string[] = [];
  for (const [name, id] of before) {
    if (after.get(name) !== id) continue;
    const again = acquires.filter((a) => a.name === name).length;
    if (again > 0) problems.push(`${name}: kept ${id} but was acquired ${again} more time(s)`);
  }
  return problems;
}
