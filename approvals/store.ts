/**
 * The approval store (DESIGN §4 rules 6–9): persisted decisions per project root and server,
 * bound to the approval hash of the exact config they were made for.
 *
 * Guarantees:
 * - State (rule 7): no record, or a record for another hash → `pending`; otherwise the stored
 *   `approved` / `rejected`. Editing any behavioural field makes a decided server pending again;
 *   editing it back restores the decision. (Whether a scope is gated at all is not this
 *   store's business; see lookup.ts.)
 * - Reads are synchronous and served from memory: loaded at `open`, replaced by `reload()`
 *   and after every write of ours. Another process's decision shows up after `reload()`.
 * - Every write takes the cross-process lock, re-reads the file under it, changes one record
 *   and writes the whole file atomically. Two processes deciding about different servers at
 *   the same time therefore both keep their decision; the file on disk, not our cache, is the
 *   base of every write. Writes of one store are also queued in-process, in call order.
 * - A decision names the approval hash of the config the user was shown (an `ApprovalHash`,
 *   never a config read at write time), so a config swapped while the user was asked is not
 *   what gets approved.
 * - Records are never removed: there is no delete. A server that leaves the config and comes
 *   back identical keeps its decision (rule 9).
 * - A corrupt file is never silently overwritten: it is moved to `<file>.corrupt-<timestamp>`
 *   (under the lock, after re-checking it is still corrupt), an error naming both files is
 *   reported, and the store continues with no decisions — everything gated is pending, the
 *   safe side. An unreadable file (e.g. permissions) is reported and never written over.
 * - Problems are kept in `errors` (the latest few) and passed to `onError`, for the daemon to
 *   show; reads never throw, writes reject with the same error they report.
 */
import type { ApprovalHash, ApprovalState, McpServerConfig } from '../api/index.js';
import { approvalHashOf } from '../api/index.js';
import {
  emptyDecisions,
  withDecision,
  type ApprovalDecisions,
  type ApprovalRecord,
  type ApprovalStatus,
} from './decisions.js';
import { ApprovalStoreError, reasonOf } from './errors.js';
import { moveAside, readDecisionsFile, writeDecisionsFile } from './file.js';
import { approvalsFilePath, type ApprovalsLocationOptions } from './location.js';
import { LockUnavailableError, lockPathOf, withFileLock } from './lock.js';
import { projectKeyOf } from './project-key.js';

export interface ApprovalStoreOptions extends ApprovalsLocationOptions {
  /** The approvals file. Default: `approvalsFilePath({ env, home })`. */
  readonly path?: string;
  /** Called with every problem the store reports (they are also kept in `errors`). */
  readonly onError?: (error: ApprovalStoreError) => void;
  /** Clock for the `.corrupt-<timestamp>` name. Default: the real one. */
  readonly now?: () => Date;
  /** How long a write waits for another process's lock. Default 15 s. */
  readonly lockTimeoutMs?: number;
}

/** How many problems `errors` keeps; older ones are dropped (they were passed to onError). */
const KEPT_ERRORS = 20;

const SAFE_SIDE = 'every project and workspace server is pending approval';

export class ApprovalStore {
  /** Absolute path of the approvals file. */
  readonly path: string;
  private decisions: ApprovalDecisions = emptyDecisions();
  private readonly problems: ApprovalStoreError[] = [];
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(private readonly options: ApprovalStoreOptions) {
    this.path = options.path ?? approvalsFilePath(options);
  }

  /** Opens the store and loads the file once. Never rejects for a bad file; see `errors`. */
  static async open(options: ApprovalStoreOptions = {}): Promise<ApprovalStore> {
    const store = new ApprovalStore(options);
    await store.reload();
    return store;
  }

  /** Problems reported since open, oldest first (at most the latest 20). */
  get errors(): readonly ApprovalStoreError[] {
    return [...this.problems];
  }

  get lastError(): ApprovalStoreError | undefined {
    return this.problems[this.problems.length - 1];
  }

  getState(root: string, name: string, config: McpServerConfig): ApprovalState {
    const record = this.recordOf(root, name);
    if (record === undefined || record.hash !== approvalHashOf(config)) return 'pending';
    return record.status;
  }

  /** The stored record, whatever config it was made for (for `describe` and `why`). */
  recordOf(root: string, name: string): ApprovalRecord | undefined {
    return this.decisions.get(projectKeyOf(root))?.get(name);
  }

  /** Approves the config whose approval hash is `hash` (the one the user was shown). */
  approve(root: string, name: string, hash: ApprovalHash): Promise<ApprovalRecord> {
    return this.decide(root, name, hash, 'approved');
  }

  /** Rejects the config whose approval hash is `hash` (the one the user was shown). */
  reject(root: string, name: string, hash: ApprovalHash): Promise<ApprovalRecord> {
    return this.decide(root, name, hash, 'rejected');
  }

  /** Re-reads the file (another process may have decided). Never rejects; see `errors`. */
  reload(): Promise<void> {
    return this.serial(async () => {
      this.decisions = await this.readForReading();
    });
  }

  private decide(
    root: string,
    name: string,
    hash: ApprovalHash,
    status: ApprovalStatus,
  ): Promise<ApprovalRecord> {
    const projectKey = projectKeyOf(root);
    const record: ApprovalRecord = { hash, status };
    return this.serial(async () => {
      try {
        return await this.locked(async () => {
          const current = await this.readUnderLock(true);
          // Whatever happens next, memory follows the disk as just read.
          this.decisions = current;
          const next = withDecision(current, projectKey, name, record);
          try {
            await writeDecisionsFile(this.path, next);
          } catch (error) {
            throw this.report(
              new ApprovalStoreError(
                'write-failed',
                this.path,
                `could not write approvals file ${this.path} (${reasonOf(error)}); the decision "${status}" for server ${name} was not saved`,
                { cause: error },
              ),
            );
          }
          this.decisions = next;
          return record;
        });
      } catch (error) {
        if (!(error instanceof LockUnavailableError)) throw error;
        throw this.report(
          new ApprovalStoreError(
            'lock-failed',
            this.path,
            `could not lock approvals file ${this.path} (${reasonOf(error.cause)}); the decision "${status}" for server ${name} was not saved. If no mcpctl or qwen process is running, remove ${lockPathOf(this.path)} and try again`,
            { cause: error.cause },
          ),
        );
      }
    });
  }

  /** Reading without the lock; only a corrupt file makes us take it (to move it aside). */
  private async readForReading(): Promise<ApprovalDecisions> {
    const read = await readDecisionsFile(this.path);
    switch (read.kind) {
      case 'missing':
        return emptyDecisions();
      case 'ok':
        return read.decisions;
      case 'unreadable':
        this.report(this.unreadable(read.error));
        return emptyDecisions();
      case 'corrupt':
        try {
          return await this.locked(() => this.readUnderLock(false));
        } catch (error) {
          // Errors of the locked read were reported there.
          if (!(error instanceof LockUnavailableError)) return emptyDecisions();
          // Could not lock (e.g. a read-only folder): leave the file alone, decide nothing.
          this.report(
            new ApprovalStoreError(
              'corrupt',
              this.path,
              `approvals file ${this.path} is corrupt (${read.problem}) and could not be locked to move it aside (${reasonOf(error.cause)}); it was left untouched and ${SAFE_SIDE}`,
              { cause: error },
            ),
          );
          return emptyDecisions();
        }
    }
  }

  /**
   * Reads while holding the lock. A corrupt file is moved aside (reported) and counts as
   * empty. An unreadable one throws when `forWrite` (we must not write over what we could not
   * read) and counts as empty otherwise.
   */
  private async readUnderLock(forWrite: boolean): Promise<ApprovalDecisions> {
    const read = await readDecisionsFile(this.path);
    switch (read.kind) {
      case 'missing':
        return emptyDecisions();
      case 'ok':
        return read.decisions;
      case 'unreadable': {
        const error = this.report(this.unreadable(read.error));
        if (forWrite) throw error;
        return emptyDecisions();
      }
      case 'corrupt': {
        let movedTo: string;
        try {
          movedTo = await moveAside(this.path, this.options.now?.() ?? new Date());
        } catch (error) {
          const failure = this.report(
            new ApprovalStoreError(
              'corrupt',
              this.path,
              `approvals file ${this.path} is corrupt (${read.problem}) and could not be moved aside (${reasonOf(error)}); it was left untouched, no decision can be saved until it is fixed or removed, and ${SAFE_SIDE}`,
              { cause: error },
            ),
          );
          if (forWrite) throw failure;
          return emptyDecisions();
        }
        this.report(
          new ApprovalStoreError(
            'corrupt',
            this.path,
            `approvals file ${this.path} is corrupt (${read.problem}); moved it to ${movedTo} and continuing with no saved decisions, so ${SAFE_SIDE} until approved again (merge the moved file back by hand to restore its decisions)`,
            { movedTo },
          ),
        );
        return emptyDecisions();
      }
    }
  }

  private unreadable(error: unknown): ApprovalStoreError {
    return new ApprovalStoreError(
      'unreadable',
      this.path,
      `cannot read approvals file ${this.path} (${reasonOf(error)}); it is left untouched and ${SAFE_SIDE} until it can be read`,
      { cause: error },
    );
  }

  /** Runs `fn` under the cross-process lock; a lost lock is reported, not thrown from a timer. */
  private locked<T>(fn: () => Promise<T>): Promise<T> {
    return withFileLock(this.path, fn, {
      ...(this.options.lockTimeoutMs === undefined
        ? {}
        : { timeoutMs: this.options.lockTimeoutMs }),
      onCompromised: (error) => {
        this.report(
          new ApprovalStoreError(
            'lock-compromised',
            this.path,
            `lost the lock ${lockPathOf(this.path)} on approvals file ${this.path} while writing (${reasonOf(error)}); a decision made at the same moment by another process may have been overwritten`,
            { cause: error },
          ),
        );
      },
    });
  }

  private report(error: ApprovalStoreError): ApprovalStoreError {
    this.problems.push(error);
    if (this.problems.length > KEPT_ERRORS) this.problems.shift();
    this.options.onError?.(error);
    return error;
  }

  /** Runs `fn` after everything queued before it, so one store never races with itself. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
