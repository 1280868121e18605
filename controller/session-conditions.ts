/**
 * The session's own conditions, beside its servers': `ConfigValid` (every source parses and
 * validates) and `Trusted` (the workspace folder is trusted).
 *
 * Guarantees:
 * - configWarnings() gives one sentence per failing file: each error with the file, line,
 *   column and what to do, then what of the file is in force until it is fixed: its last good
 *   content (DESIGN §5 "Keep last good": "its servers are as it was last read"), or nothing
 *   when it was never read well ("its servers are missing"). What every door shows: the CLI's
 *   warnings, `reload` and `diff`, the daemon log, the agent's instructions.
 * - `ConfigValid=False` says those sentences; its reason is `ParseError` when any file does
 *   not parse, else `InvalidConfig`.
 * - A condition keeps its transition time while its status holds (api/object.ts).
 * - Each new set of source errors is one Warning event `ConfigInvalid`; the end of the errors
 *   one Normal event `ConfigValid`. The same errors read again record nothing new.
 */
import { setCondition, type Condition } from '../api/index.js';
import { formatSourceError } from '../informers/parse.js';
import type { DesiredState, SourceHolds, SourceStatus } from '../informers/types.js';
import type { EventSink } from '../reconcilers/events.js';

/** What a file's content is, in the sentence about it. */
const HELD: Record<SourceHolds, string> = {
  servers: 'its servers',
  languageServers: 'its language servers',
  trust: 'its trusted folders',
};

/** The sentence about one file that has errors (see the guarantees). */
function warningOf(source: SourceStatus): string {
  const errors = source.errors.map(formatSourceError).join('; ');
  const held = HELD[source.holds];
  return source.inForce
    ? `${errors}; until the file is fixed, ${held} are as it was last read`
    : `${errors}; the file was never read, so ${held} are missing until it is fixed`;
}

/** One sentence per source with errors, in the order of `sources` (see the guarantees). */
export function configWarnings(sources: readonly SourceStatus[]): string[] {
  return sources.filter((s) => s.errors.length > 0).map(warningOf);
}

export interface SessionConditionsDeps {
  readonly sessionId: string;
  readonly workspace: string;
  readonly events: EventSink;
  now(): number;
}

export class SessionConditions {
  readonly #deps: SessionConditionsDeps;
  #conditions: Condition[] = [];
  /** The source errors last reported, as their message (see update). */
  #lastSourceErrors = '';

  constructor(deps: SessionConditionsDeps) {
    this.#deps = deps;
  }

  get current(): Condition[] {
    return this.#conditions;
  }

  /** Recomputes both conditions from `desired`; the errors' events as in the guarantees. */
  update(desired: DesiredState): void {
    const d = this.#deps;
    const now = new Date(d.now());
    const errors = desired.sources.flatMap((s: SourceStatus) => s.errors);
    const message = configWarnings(desired.sources).join('; ');
    let next = setCondition(
      this.#conditions,
      errors.length === 0
        ? { type: 'ConfigValid', status: 'True', reason: 'Valid', message: '' }
        : {
            type: 'ConfigValid',
            status: 'False',
            reason: errors.some((e) => e.kind === 'parse') ? 'ParseError' : 'InvalidConfig',
            message,
          },
      now,
    ).conditions;
    next = setCondition(
      next,
      desired.trusted
        ? { type: 'Trusted', status: 'True', reason: 'Trusted', message: '' }
        : {
            type: 'Trusted',
            status: 'False',
            reason: 'UntrustedFolder',
            message: `${d.workspace} is not trusted; no server connects`,
          },
      now,
    ).conditions;
    this.#conditions = next;
    if (message !== this.#lastSourceErrors) {
      if (errors.length > 0)
        d.events.record('Warning', 'ConfigInvalid', `session/${d.sessionId}`, message);
      else if (this.#lastSourceErrors !== '')
        d.events.record('Normal', 'ConfigValid', `session/${d.sessionId}`, 'config is valid again');
      this.#lastSourceErrors = message;
    }
  }
}
