/**
 * What the controller knows about one server of one session, of either kind: its generation,
 * conditions, the lease that serves it and its failure history. Owned by the server
 * reconciler; read by the session to build McpServer and LanguageServer objects.
 */
import {
  MCP_SERVERS,
  jsonEqual,
  scrubSecrets,
  setCondition,
  type Condition,
  type ConditionInput,
  type McpServerConfig,
  type KindDescriptor,
} from '../api/index.js';
import type { Lease, LinesSince, LostCause } from '../pool/types.js';
import type { FloodReport, OversizedLine } from '../pool/traffic.js';

/** What the reconciler reads of a lease, whatever the kind (an MCP `Lease` is one). */
export interface ServedLease {
  /** The pool key it was acquired under. */
  readonly key: string;
  readonly connectionId: string;
  readonly pid: number | undefined;
  /** Last lines the server wrote to stderr. */
  stderrTail(): readonly string[];
  /** Whole stderr lines from sequence number `seq` on; absent: a remote server (none). */
  stderrSince?(seq: number): LinesSince;
  /** What the connection does over its limits now; undefined while it behaves. */
  flooding?(): FloodReport | undefined;
}

export interface LiveConnection<C = McpServerConfig, L extends ServedLease = Lease> {
  readonly lease: L;
  readonly connectionId: string;
  config: C;
  readonly connectedAt: number;
  /** Set by the pool's onLost: the connection is gone and must be handled by the next pass. */
  lost?: string;
  /** The pool said why: `unauthorized` waits for a login instead of a retry. */
  lostCause?: LostCause;
  /** Messages over the size limit the pool reported, for the next pass to record as events. */
  oversized?: OversizedLine[];
}

export interface RetryWindow {
  /** The connectionId that failed; a different desired id retries at once. */
  readonly connectionId: string;
  /** Epoch ms before which this id is not tried again. */
  readonly at: number;
}

export class ServerRecord<C = McpServerConfig, L extends ServedLease = Lease> {
  generation = 0;
  #spec: C | undefined;
  readonly creationTimestamp: string;
  /** Events' involvedObject: `server/NAME`, or `languageserver/NAME` for a language server. */
  readonly object: string;
  conditions: Condition[] = [];
  live: LiveConnection<C, L> | undefined;
  /** Consecutive failures of the current config (connect failures and crashes). */
  failures = 0;
  retry: RetryWindow | undefined;
  restarts = 0;
  everConnected = false;
  /** The approval hash a PendingApproval prompt was last sent for (one prompt per config). */
  promptedHash: string | undefined;
  lastError: string | undefined;
  /** Last stderr lines seen from a failed or lost connection (already scrubbed). */
  lastStderr: readonly string[] = [];
  /**
   * Secret values of every config it ran this session (env/header values, expanded variables):
   * kept across edits, since an old process's stderr may still mention the old ones.
   */
  readonly secrets = new Set<string>();
  /** The MissingEnv message last recorded as an event (one Warning per distinct cause). */
  missingEnvReported: string | undefined;
  /** The flood report last shown (and warned about) for the live connection. */
  floodNote: string | undefined;
  /**
   * The connectionId that needs an OAuth login: no retry of it until a login (or an edit)
   * says to try again. Waiting, not backing off: a provider is never hammered.
   */
  awaitingLogin: string | undefined;
  /**
   * The connectionId whose restarts were given up (its restart policy: `restartOnCrash`,
   * `maxRestarts`): not tried again until the entry is edited or the session reloads.
   */
  gaveUp: string | undefined;
  /**
   * Served from its catalog with no process (issue #34): the connectionId, and when the pool
   * stopped it for idling (absent: not started yet this session).
   */
  idle: { readonly connectionId: string; readonly stoppedAt?: number } | undefined;

  constructor(
    readonly name: string,
    now: number,
    kind: Pick<KindDescriptor, 'objectOf'> = MCP_SERVERS,
  ) {
    this.creationTimestamp = new Date(now).toISOString();
    this.object = kind.objectOf(name);
  }

  /** Bumps the generation when the spec changed; returns true on a change. */
  observeSpec(config: C): boolean {
    // Unchanged entries keep their object from the informer, so this is mostly a reference check.
    if (this.#spec !== undefined && jsonEqual(this.#spec, config)) return false;
    this.#spec = config;
    this.generation += 1;
    return true;
  }

  setCondition(next: Omit<ConditionInput, 'observedGeneration'>, now: number): boolean {
    const result = setCondition(
      this.conditions,
      { ...next, observedGeneration: this.generation },
      new Date(now),
    );
    this.conditions = result.conditions;
    return result.changed;
  }

  /** `text` with every secret of this server's config replaced (for any text we show). */
  readonly scrub = (text: string): string => scrubSecrets(text, this.secrets);

  condition(type: string): Condition | undefined {
    return this.conditions.find((c) => c.type === type);
  }
}
