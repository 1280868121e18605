/**
 * The session's own conditions, beside its servers': `ConfigValid` (every source parses and
 * validates) and `Trusted` (the workspace folder is trusted).
 *
 * Guarantees:
 * - `ConfigValid=False` names each failing file, line and column, and says that the last good
 *   content stays in force (DESIGN §5 "Keep last good"); its reason is `ParseError` when any
 *   file does not parse, else `InvalidConfig`.
 * - A condition keeps its transition time while its status holds (api/object.ts).
 * - Each new set of source errors is one Warning event `ConfigInvalid`; the end of the errors
 *   one Normal event `ConfigValid`. The same errors read again record nothing new.
 */
import { setCondition, type Condition } from '../api/index.js';
import type { DesiredState, SourceStatus } from '../informers/types.js';
import type { EventSink } from '../reconcilers/events.js';

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
    const message = errors
      .map((e) => `${e.file}${e.line ? `:${e.line}:${e.column}` : ''}: ${e.message}`)
      .join('; ');
    let next = setCondition(
      this.#conditions,
      errors.length === 0
        ? { type: 'ConfigValid', status: 'True', reason: 'Valid', message: '' }
        : {
            type: 'ConfigValid',
            status: 'False',
            reason: errors.some((e) => e.kind === 'parse') ? 'ParseError' : 'InvalidConfig',
            message: `${message} (the last good content stays in force)`,
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
