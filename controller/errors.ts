/** Errors a session raises to its callers (CLI, gateway); each says what to do. */
import { MCP_SERVERS, type KindDescriptor } from '../api/index.js';
import { summaryLine, type SubjectSummary } from '../approvals/index.js';
import type { WhyAnswer } from '../reconcilers/why.js';

export class UnknownServerError extends Error {
  /**
   * `kind`: the kind of server asked for. `broken`: the session's files of this kind that do
   * not parse or validate, where the name may be (their servers are not known until fixed).
   */
  constructor(
    readonly serverName: string,
    known: readonly string[],
    kind: Pick<KindDescriptor, 'noun' | 'listResource'> = MCP_SERVERS,
    broken: readonly string[] = [],
  ) {
    const noun = kind.noun;
    const near = closest(serverName, known);
    const maybe =
      broken.length === 0
        ? ''
        : `; it may be in ${broken.join(' or ')}, which does not parse or validate: fix ${broken.length === 1 ? 'that file' : 'those files'} (mcpctl get ${kind.listResource} says where)`;
    super(
      `no ${noun} named ${serverName} in this session${near.length ? `; did you mean ${near.join(' or ')}?` : ''}${maybe}`,
    );
    this.name = 'UnknownServerError';
  }
}

export class NotGatedError extends Error {
  override name = 'NotGatedError';
}

/** `approve NAME --tools` of a server whose pins hold nothing (or not what was shown). */
export class NothingHeldError extends Error {
  override name = 'NothingHeldError';
}

/**
 * A decision named a config that is not the server's current one (it changed while the user
 * was asked, or `--hash` names another): nothing was decided. Carries the current config's
 * summary (no secret values) so the user can look again and decide about that one.
 */
export class StaleDecisionError extends Error {
  override name = 'StaleDecisionError';
  constructor(
    readonly current: SubjectSummary,
    problem: string,
  ) {
    super(
      `${problem}; nothing was decided. Server ${current.name} from ${current.source} is now ${summaryLine(current)}; check it, then pass --hash ${current.hash.slice(0, 12)} to decide about it`,
    );
  }
}

/** A call to a server whose tools are unavailable: carries the `why` answer and its fix. */
export class ServerUnavailableError extends Error {
  constructor(readonly why: Pick<WhyAnswer, 'name' | 'message' | 'action'> & { reason: string }) {
    super(`${why.message}: ${why.action}`);
    this.name = 'ServerUnavailableError';
  }
}

/** Names within a small edit distance, nearest first (for "did you mean"). */
export function closest(name: string, known: readonly string[]): string[] {
  return known
    .map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }))
    .filter(({ k, d }) => d <= Math.max(2, Math.floor(k.length / 3)))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map(({ k }) => k);
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}
