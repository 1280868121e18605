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
 * - One malformed entry costs only itself: it is ignored (its server is pending, the safe
 *   side), reported (`invalid-entries`, once per change of the set; `invalidEntries(root)` for the
 *   sessions to show) and kept in the file as it was by every write. A decision that takes its
 *   place first writes it to `<file>.corrupt-<timestamp>` and says so (`displaced`); if that
 *   fails, the decision is not saved.
 * - A file that is not JSON(C) at all, or not an object at the top, is never silently
 *   overwritten: it is moved to `<file>.corrupt-<timestamp>` (under the lock, after
 *   re-checking it is still corrupt), an error naming both files is reported, and the store
 *   continues with no decisions — everything gated is pending, the safe side. An unreadable
 *   file (e.g. permissions) is reported and never written over.
 * - Problems are kept in `errors` (the latest few) and passed to `onError`, for the daemon to
 *   show; reads never throw, writes reject with the same error they report.
 */
import type { ApprovalHash, ApprovalState, McpServerConfig } from '../api/index.js';
import { approvalHashOf } from '../api/index.js';
import { ApprovalStoreError, reasonOf } from './errors.js';
import type { ApprovalKey } from './kinds.js';
import {
  emptyContent,
  withDecision,
  type ApprovalRecord,
  type ApprovalsContent,
  type ApprovalStatus,
  type InvalidEntry,
} from './file-format.js';
import { moveAside, readDecisionsFile, writeAside, writeDecisionsFile } from './file-io.js';
import { approvalsFilePath, type ApprovalsLocationOptions } from './location.js';
import { LockUnavailableError, lockPathOf, withFileLock } from './lock.js';
import { projectKeyOf } from './project-key.js';
import { repositoryOf } from './work-tree.js';

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

/** What a decision wrote: the record, and what it did with a malformed entry in its place. */
export interface SavedDecision {
  readonly record: ApprovalRecord;
  /** What the user must be told about this write (the `displaced` message, if any). */
  readonly warnings: readonly string[];
  /** Set when the decision replaced malformed entries: they were moved to `movedTo`. */
  readonly displaced?: {
    readonly entries: readonly InvalidEntry[];
    readonly movedTo: string;
    /** Names the entries, their problems and the side file, for the user. */
    readonly message: string;
  };
}

/** A malformed entry as the user is told about it. */
export interface InvalidApproval {
  readonly projectKey: string;
  /** Its server; absent when the project's whole value is malformed. */
  readonly name?: string;
  /** Names the file, the entry, the problem and the fix. */
  readonly message: string;
}

/** How many problems `errors` keeps; older ones are dropped (they were passed to onError). */
const KEPT_ERRORS = 20;

const SAFE_SIDE = 'every project and workspace server is pending approval';

export class ApprovalStore {
  /** Absolute path of the approvals file. */
  readonly path: string;
  private content: ApprovalsContent = emptyContent();
  /** Project key → its git repository (work-tree.ts), for the content read last. */
  private readonly repositories = new Map<string, string | undefined>();
  private readonly problems: ApprovalStoreError[] = [];
  /** The malformed entries last reported (their problems), so a re-read repeats nothing. */
  private reportedInvalid = '';
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
    return this.stateOf(root, { record: name, hash: approvalHashOf(config) });
  }

  /**
   * The state of the decision kept under `key.record` for the config hashed `key.hash`, of
   * either kind (kinds.ts: `approvalKeyOf`).
   */
  stateOf(root: string, key: ApprovalKey): ApprovalState {
    const record = this.recordOf(root, key.record);
    if (record?.hash === key.hash) return record.status;
    return this.carried(root, key)?.status ?? 'pending';
  }

  /**
   * Where the decision `stateOf` gives for `root` was made, when it was made in another work
   * tree of the same git repository (work-tree.ts) for the identical config: a decision about
   * another config is never carried, and among several a rejection wins. Undefined when the
   * decision is the project's own, or there is none.
   */
  carriedFrom(root: string, key: ApprovalKey): string | undefined {
    const own = this.recordOf(root, key.record);
    return own?.hash === key.hash ? undefined : this.carried(root, key)?.from;
  }

  private carried(
    root: string,
    key: ApprovalKey,
  ): { readonly status: ApprovalStatus; readonly from: string } | undefined {
    const here = projectKeyOf(root);
    const repository = this.repositoryOfKey(here);
    if (repository === undefined) return undefined;
    let found: { status: ApprovalStatus; from: string } | undefined;
    for (const [project, records] of this.content.decisions) {
      if (project === here) continue;
      const record = records.get(key.record);
      if (record?.hash !== key.hash || this.repositoryOfKey(project) !== repository) continue;
      if (found === undefined || record.status === 'rejected')
        found = { status: record.status, from: project };
    }
    return found;
  }

  /** The repository of a project key, read once per content of the file. */
  private repositoryOfKey(project: string): string | undefined {
    if (!this.repositories.has(project)) this.repositories.set(project, repositoryOf(project));
    return this.repositories.get(project);
  }

  /** The stored record, whatever config it was made for (for `describe` and `why`). */
  recordOf(root: string, name: string): ApprovalRecord | undefined {
    return this.content.decisions.get(projectKeyOf(root))?.get(name);
  }

  /** Malformed entries of the file as last read: ignored for gating, kept in the file. */
  get allInvalidEntries(): readonly InvalidApproval[] {
    return this.content.invalid.map((entry) => ({
      projectKey: entry.projectKey,
      ...(entry.name === undefined ? {} : { name: entry.name }),
      message: this.invalidMessage(entry),
    }));
  }

  /** The malformed entries of the project at `root`. */
  invalidEntries(root: string): readonly InvalidApproval[] {
    const key = projectKeyOf(root);
    return this.allInvalidEntries.filter((e) => e.projectKey === key);
  }

  /** Approves the config whose approval hash is `hash` (the one the user was shown). */
  approve(root: string, name: string, hash: ApprovalHash): Promise<SavedDecision> {
    return this.decide(root, name, hash, 'approved');
  }

  /** Rejects the config whose approval hash is `hash` (the one the user was shown). */
  reject(root: string, name: string, hash: ApprovalHash): Promise<SavedDecision> {
    return this.decide(root, name, hash, 'rejected');
  }

  /** Re-reads the file (another process may have decided). Never rejects; see `errors`. */
  reload(): Promise<void> {
    return this.serial(async () => {
      this.content = await this.readForReading();
      this.repositories.clear();
      this.noteInvalid();
    });
  }

  private decide(
    root: string,
    name: string,
    hash: ApprovalHash,
    status: ApprovalStatus,
  ): Promise<SavedDecision> {
    const projectKey = projectKeyOf(root);
    const record: ApprovalRecord = { hash, status };
    return this.serial(async () => {
      try {
        return await this.locked(async () => {
          const current = await this.readUnderLock(true);
          // Whatever happens next, memory follows the disk as just read.
          this.content = current;
          const { content: next, displaced } = withDecision(current, projectKey, name, record);
          // A malformed entry in the decision's place is kept aside first, never just dropped.
          const aside = displaced.length > 0 ? await this.keepAside(displaced, name, status) : '';
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
          this.content = next;
          this.repositories.clear();
          this.noteInvalid();
          if (aside === '') return { record, warnings: [] };
          const message = `approvals file ${this.path}: the decision "${status}" for server ${name} replaced ${displaced.map((e) => `a malformed entry (${e.problem})`).join(' and ')}; it was kept in ${aside}`;
          this.report(new ApprovalStoreError('invalid-entries', this.path, message));
          return {
            record,
            warnings: [message],
            displaced: { entries: displaced, movedTo: aside, message },
          };
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

  /** Writes `entries` to a side file; failing that, the decision is not saved (reported). */
  private async keepAside(
    entries: readonly InvalidEntry[],
    name: string,
    status: ApprovalStatus,
  ): Promise<string> {
    try {
      return await writeAside(this.path, entries, this.options.now?.() ?? new Date());
    } catch (error) {
      throw this.report(
        new ApprovalStoreError(
          'write-failed',
          this.path,
          `could not keep the malformed entry ${entries.map((e) => e.problem).join(' and ')} of approvals file ${this.path} aside (${reasonOf(error)}); the decision "${status}" for server ${name} was not saved. Fix or remove that entry and try again`,
          { cause: error },
        ),
      );
    }
  }

  /** Reports the malformed entries once each time their set changes. */
  private noteInvalid(): void {
    const invalid = this.content.invalid;
    const key = invalid.map((e) => e.problem).join('\n');
    if (key === this.reportedInvalid) return;
    this.reportedInvalid = key;
    if (invalid.length === 0) return;
    this.report(
      new ApprovalStoreError(
        'invalid-entries',
        this.path,
        invalid.map((e) => this.invalidMessage(e)).join('; '),
      ),
    );
  }

  private invalidMessage(entry: InvalidEntry): string {
    const pending =
      entry.name === undefined
        ? `every project and workspace server of ${entry.projectKey} is pending approval`
        : `server ${entry.name} of ${entry.projectKey} is pending approval`;
    return `approvals file ${this.path} has a malformed entry, ignored: ${entry.problem}; every other decision holds and the entry is kept as it is, but ${pending} until it is fixed or removed (or decided again)`;
  }

  /** Reading without the lock; only a corrupt file makes us take it (to move it aside). */
  private async readForReading(): Promise<ApprovalsContent> {
    const read = await readDecisionsFile(this.path);
    switch (read.kind) {
      case 'missing':
        return emptyContent();
      case 'ok':
        return read.content;
      case 'unreadable':
        this.report(this.unreadable(read.error));
        return emptyContent();
      case 'corrupt':
        try {
          return await this.locked(() => this.readUnderLock(false));
        } catch (error) {
          // Errors of the locked read were reported there.
          if (!(error instanceof LockUnavailableError)) return emptyContent();
          // Could not lock (e.g. a read-only folder): leave the file alone, decide nothing.
          this.report(
            new ApprovalStoreError(
              'corrupt',
              this.path,
              `approvals file ${this.path} is corrupt (${read.problem}) and could not be locked to move it aside (${reasonOf(error.cause)}); it was left untouched and ${SAFE_SIDE}`,
              { cause: error },
            ),
          );
          return emptyContent();
        }
    }
  }

  /**
   * Reads while holding the lock. A corrupt file is moved aside (reported) and counts as
   * empty. An unreadable one throws when `forWrite` (we must not write over what we could not
   * read) and counts as empty otherwise.
   */
  private async readUnderLock(forWrite: boolean): Promise<ApprovalsContent> {
    const read = await readDecisionsFile(this.path);
    switch (read.kind) {
      case 'missing':
        return emptyContent();
      case 'ok':
        return read.content;
      case 'unreadable': {
        const error = this.report(this.unreadable(read.error));
        if (forWrite) throw error;
        return emptyContent();
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
          return emptyContent();
        }
        this.report(
          new ApprovalStoreError(
            'corrupt',
            this.path,
            `approvals file ${this.path} is corrupt (${read.problem}); moved it to ${movedTo} and continuing with no saved decisions, so ${SAFE_SIDE} until approved again (merge the moved file back by hand to restore its decisions)`,
            { movedTo },
          ),
        );
        return emptyContent();
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
