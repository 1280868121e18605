/**
 * A session's decisions about its gated servers: what a decision is about (its subject),
 * approve, reject, and the report of malformed entries in the approvals file.
 *
 * Guarantees:
 * - `approve`/`reject` take the approval hash of the config the user was shown and decide
 *   nothing when the current config has another one (StaleDecisionError): a config swapped
 *   while the user was asked is never the one approved.
 * - `subject` with a pin (a `--hash` prefix) throws StaleDecisionError unless the pin names the
 *   current config. An unknown server is UnknownServerError; one from a scope that needs no
 *   approval is NotGatedError.
 * - A decision is recorded as an event, then the gating is recomputed and the server
 *   reconciled; nothing here connects (DESIGN §2: only a reconcile pass acquires).
 * - Malformed entries of the project are Warning events on their server (or on the session),
 *   once per change of the set, and once a Normal event when none is left.
 * - One instance per kind (`kind`: MCP servers by default, LSP_DECISIONS for language servers):
 *   a language server's decision is stored under its own record and hash (approvals/kinds.ts),
 *   its events name `languageserver/NAME`, so no decision about one kind admits the other.
 *   Malformed entries are reported by the MCP instance only (one file, one report).
 */
import {
  LANGUAGE_SERVERS,
  MCP_SERVERS,
  isGatedScope,
  type KindDescriptor,
  type ApprovalHash,
  type ApprovalState,
  type DesiredLanguageServer,
  type DesiredServer,
  type McpServerConfig,
  type Scope,
} from '../api/index.js';
import {
  checkPin,
  languageServerSubjectOf,
  subjectOf,
  summaryLine,
  summaryOf,
  type AnySubject,
  type ApprovalKey,
  type ApprovalSubject,
  type LanguageServerSubject,
} from '../approvals/index.js';
import type { EventSink } from '../reconcilers/events.js';
import { NotGatedError, StaleDecisionError, UnknownServerError } from './errors.js';

/** The persisted approvals, as the session uses them (approvals/ implements it). */
export interface ApprovalStoreLike {
  getState(root: string, name: string, config: McpServerConfig): ApprovalState;
  /** Either kind, by record and hash (approvals/kinds.ts); absent: language servers stay pending. */
  stateOf?(root: string, key: ApprovalKey): ApprovalState;
  /** The other work tree of the same repository a decision was carried from (approvals/store.ts). */
  carriedFrom?(root: string, key: ApprovalKey): string | undefined;
  /** Decisions name the approval hash of the config shown, never a config read later. */
  approve(root: string, name: string, hash: ApprovalHash): Promise<DecisionNotes | void>;
  reject(root: string, name: string, hash: ApprovalHash): Promise<DecisionNotes | void>;
  /** Malformed entries of the project at `root`: ignored for gating, kept in the file. */
  invalidEntries?(root: string): readonly InvalidApprovalEntry[];
}

/** What a decision's write has to tell the user (e.g. a malformed entry it kept aside). */
export interface DecisionNotes {
  readonly warnings: readonly string[];
}

export interface InvalidApprovalEntry {
  /** Its server; absent when the project's whole entry is malformed. */
  readonly name?: string;
  /** Names the file, the entry, the problem and the fix. */
  readonly message: string;
}

/** Approve-for-session decisions, in memory only (rule 10). */
export interface SessionApprovalsLike {
  approve(name: string, hash: ApprovalHash): void;
  isApproved(name: string, config: McpServerConfig): boolean;
  /** Either kind, by record and hash (approvals/kinds.ts). */
  isApprovedKey?(key: ApprovalKey): boolean;
  revoke(name: string): void;
}

/** What a server of a kind is to decisions: its subject, its record and its events' object. */
export interface DecisionKind<S, Sub extends AnySubject> {
  /** The kind's words and record names (api/kinds.ts). */
  readonly descriptor: KindDescriptor;
  subjectOf(server: S): Sub;
  /**
   * Whether this kind's instance reports the project's malformed approvals entries: one kind
   * does (the MCP servers'), as the entries are one file's, not a kind's.
   */
  readonly reportsInvalid: boolean;
}

export const MCP_DECISIONS: DecisionKind<DesiredServer, ApprovalSubject> = {
  descriptor: MCP_SERVERS,
  subjectOf,
  reportsInvalid: true,
};

export const LSP_DECISIONS: DecisionKind<DesiredLanguageServer, LanguageServerSubject> = {
  descriptor: LANGUAGE_SERVERS,
  subjectOf: languageServerSubjectOf,
  reportsInvalid: false,
};

/** What decisions read of a desired server, whatever its kind. */
interface Decidable {
  readonly name: string;
  readonly scope: Scope;
  readonly source: string;
}

export interface ApprovalDecisionsDeps<
  S extends Decidable = DesiredServer,
  Sub extends AnySubject = ApprovalSubject,
> {
  /** The kind decided about. Default: MCP servers. */
  readonly kind?: DecisionKind<S, Sub>;
  readonly sessionId: string;
  /** The project root decisions are stored under: the session's workspace. */
  readonly workspace: string;
  readonly approvals: ApprovalStoreLike;
  readonly sessionApprovals: SessionApprovalsLike;
  readonly events: EventSink;
  /** The session's desired servers of the kind now. */
  servers(): Readonly<Record<string, S>>;
  /** Recomputes the gating of the desired state; names whose admission moved are reconciled. */
  refreshGating(): void;
  /** Reconciles `name` (a decision about it was made). */
  enqueue(name: string): void;
}

export class ApprovalDecisions<
  S extends Decidable = DesiredServer,
  Sub extends AnySubject = ApprovalSubject,
> {
  readonly #deps: ApprovalDecisionsDeps<S, Sub>;
  readonly #kind: DecisionKind<S, Sub>;
  /** The malformed entries last reported, as one key (see reportInvalid). */
  #lastInvalid = '';

  constructor(deps: ApprovalDecisionsDeps<S, Sub>) {
    this.#deps = deps;
    // The default kind is MCP's: its types are S and Sub's defaults.
    this.#kind = deps.kind ?? (MCP_DECISIONS as unknown as DecisionKind<S, Sub>);
  }

  /** Where the store keeps the decision about `name`. */
  #record(name: string): string {
    return this.#kind.descriptor.recordOf(name);
  }

  /** The events' involvedObject of `name`. */
  #object(name: string): string {
    return this.#kind.descriptor.objectOf(name);
  }

  #noun(): string {
    return this.#kind.descriptor.noun;
  }

  /**
   * The gated server `name` as a decision names it now: its current config and approval hash.
   * With `pin` (a `--hash` prefix), throws StaleDecisionError unless the pin names that config.
   */
  subject(name: string, pin?: string): Sub {
    const subject = this.#kind.subjectOf(this.#gatedServer(name));
    if (pin === undefined) return subject;
    const check = checkPin(subject.hash, pin);
    if (!check.ok) throw new StaleDecisionError(summaryOf(subject), check.problem);
    return subject;
  }

  /**
   * Approves the config of `name` whose approval hash is `hash` — the one the user was shown.
   * When the current config has another hash (it changed meanwhile) nothing is approved and
   * StaleDecisionError says what the current config is; the reconcile of the new config has
   * asked (or will ask) about it. Resolves with what was approved.
   */
  async approve(
    name: string,
    hash: ApprovalHash,
    options: { sessionOnly?: boolean } = {},
  ): Promise<Sub> {
    const d = this.#deps;
    const subject = this.#currentSubject(name, hash);
    const record = this.#record(name);
    if (options.sessionOnly) d.sessionApprovals.approve(record, hash);
    else this.#noteDecision(name, await d.approvals.approve(d.workspace, record, hash));
    d.events.record(
      'Normal',
      'Approved',
      this.#object(name),
      `${options.sessionOnly ? 'approved for this session' : 'approved'}: ${summaryLine(summaryOf(subject))}`,
    );
    this.#decided(name);
    return subject;
  }

  /** Rejects the config of `name` whose approval hash is `hash`; stale → as in `approve`. */
  async reject(name: string, hash: ApprovalHash): Promise<Sub> {
    const d = this.#deps;
    const subject = this.#currentSubject(name, hash);
    const record = this.#record(name);
    d.sessionApprovals.revoke(record);
    this.#noteDecision(name, await d.approvals.reject(d.workspace, record, hash));
    d.events.record(
      'Normal',
      'Rejected',
      this.#object(name),
      `rejected: ${summaryLine(summaryOf(subject))}`,
    );
    this.#decided(name);
    return subject;
  }

  /**
   * The approval store re-read decisions made elsewhere (another process, a hand edit):
   * recompute the gating; servers whose admission moved are reconciled.
   */
  changed(): void {
    this.reportInvalid();
    this.#deps.refreshGating();
  }

  /**
   * Malformed approvals entries of this project, as Warning events on their server (shown by
   * `describe server`) or on the session; once per change of the set, and once when fixed.
   */
  reportInvalid(): void {
    if (!this.#kind.reportsInvalid) return;
    const d = this.#deps;
    const entries = d.approvals.invalidEntries?.(d.workspace) ?? [];
    const key = entries.map((e) => e.message).join('\n');
    if (key === this.#lastInvalid) return;
    const hadSome = this.#lastInvalid !== '';
    this.#lastInvalid = key;
    for (const entry of entries)
      d.events.record(
        'Warning',
        'InvalidApproval',
        entry.name === undefined ? `session/${d.sessionId}` : MCP_SERVERS.objectOf(entry.name),
        entry.message,
      );
    if (entries.length === 0 && hadSome)
      d.events.record(
        'Normal',
        'ApprovalsValid',
        `session/${d.sessionId}`,
        'the approvals file has no malformed entry for this project any more',
      );
  }

  /** A decision about `name` was made: the gating follows it, then `name` is reconciled. */
  #decided(name: string): void {
    this.#deps.refreshGating();
    this.#deps.enqueue(name);
  }

  /** The subject of `name` now, when its hash is `hash`; else StaleDecisionError. */
  #currentSubject(name: string, hash: ApprovalHash): Sub {
    const subject = this.#kind.subjectOf(this.#gatedServer(name));
    if (subject.hash !== hash)
      throw new StaleDecisionError(
        summaryOf(subject),
        `the config of ${this.#noun()} ${name} changed after it was shown (the decision was for hash ${hash})`,
      );
    return subject;
  }

  /** Warnings of a decision's write (a malformed entry it kept aside) become events. */
  #noteDecision(name: string, notes: DecisionNotes | void): void {
    for (const warning of notes?.warnings ?? [])
      this.#deps.events.record('Warning', 'InvalidApproval', this.#object(name), warning);
    this.reportInvalid();
  }

  #gatedServer(name: string): S {
    const servers = this.#deps.servers();
    const server = Object.hasOwn(servers, name) ? servers[name] : undefined;
    if (!server) throw new UnknownServerError(name, Object.keys(servers), this.#kind.descriptor);
    if (!isGatedScope(server.scope))
      throw new NotGatedError(
        `${this.#noun()} ${name} comes from ${server.scope} scope (${server.source}), which needs no approval`,
      );
    return server;
  }
}
