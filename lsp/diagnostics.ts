/**
 * Diagnostics of a file as it is on disk now — never of an older content.
 *
 * A server reports diagnostics by pushing them (`textDocument/publishDiagnostics`), whenever it
 * is done analysing, or, when it offers it, on request (`textDocument/diagnostic`, "pull").
 * `currentDiagnostics` syncs the file (documents.ts) and then waits, bounded, for diagnostics
 * of exactly the content it synced. Which diagnostics are "of that content" is the rule below.
 *
 * The rule:
 * 1. Pull, when the server offers it (statically or by registration): the answer to a
 *    `textDocument/diagnostic` sent after the sync is about the synced content (a server
 *    handles a document's notifications and requests in order). A "server cancelled" answer is
 *    asked again while time is left.
 * 2. Push with a version (`versionSupport`): a publish counts only when its `version` is the
 *    synced version. Of several for it, the last counts.
 * 3. Push without a version (typescript-language-server publishes none): the content must
 *    reach the server by a fresh `didOpen` (documents.ts, `delivery: 'open'`), because servers
 *    publish for every open but not always for a change (typescript-language-server stays
 *    silent when a file was clean and is clean again, so a wait for "the next publish" would
 *    hang). After the open, a barrier request about the document (`documentSymbol`, else
 *    `hover`) is sent and answered: the server has then taken in the open, and what it
 *    published before is about older content. A publish counts when it arrived after that
 *    answer, and it is the answer once `settleMs` passed without another publish for the file
 *    (servers publish several passes — syntax, then semantics — and the last one is whole).
 *    Before the sync, a burst of publishes still arriving for the file is let settle first. The
 *    barrier is made once per version: a later call about the same content takes the latest
 *    publish since it, so asking twice does not wait for a publish that already came.
 *    Limits, said plainly: a server that, after answering the barrier, still publishes results
 *    it computed for older content could be taken at its word; a pass that ends more than
 *    `settleMs` after the previous one is seen by the next call, not this one.
 * 4. A server is taken as versioned as soon as one publish carried a version; before that
 *    rule 3 applies (rule 3 is safe for versioned servers too, only slower).
 * 5. Nothing counts within the bound → `analysing`: the server is still working; never an
 *    older version's diagnostics as current.
 * If the file is synced again meanwhile (another agent, a newer content on disk), the answer
 * is for the newest version, which it names.
 */
import type {
  Diagnostic,
  DocumentDiagnosticReport,
  PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';
import { LspError } from './errors.js';
import type { DocumentSnapshot, DocumentSync } from './documents.js';
import { pathOf } from './workspace-files.js';

export const DEFAULT_SETTLE_MS = 200;
/** LSP's "the server cancelled this request; ask again" (LSPErrorCodes.ServerCancelled). */
const SERVER_CANCELLED = -32802;

interface Publish {
  /** Arrival order over every publish of the connection. */
  readonly seq: number;
  readonly at: number;
  readonly version: number | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** Every publish of one connection, as it arrived. */
export class DiagnosticsStore {
  #seq = 0;
  #versioned = false;
  readonly #now: () => number;
  /** The latest publish with a version, and the latest without, per file path. */
  readonly #withVersion = new Map<string, Publish>();
  readonly #withoutVersion = new Map<string, Publish>();
  readonly #lastAt = new Map<string, number>();
  readonly #waiters = new Set<() => void>();
  /** Per file, the barrier of its current version (rule 3): one per version, shared. */
  readonly #barriers = new Map<string, { version: number; seq: Promise<number | undefined> }>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  publish(params: PublishDiagnosticsParams): void {
    const file = pathOf(params.uri);
    if (file === undefined || !Array.isArray(params.diagnostics)) return;
    const version = typeof params.version === 'number' ? params.version : undefined;
    const publish: Publish = {
      seq: ++this.#seq,
      at: this.#now(),
      version,
      diagnostics: params.diagnostics,
    };
    if (version !== undefined) this.#versioned = true;
    (version === undefined ? this.#withoutVersion : this.#withVersion).set(file, publish);
    this.#lastAt.set(file, publish.at);
    for (const wake of [...this.#waiters]) wake();
  }

  /** The number of publishes so far: a point in the stream. */
  get seq(): number {
    return this.#seq;
  }

  /** True once the server published a version. */
  get versioned(): boolean {
    return this.#versioned;
  }

  withVersion(file: string): Publish | undefined {
    return this.#withVersion.get(file);
  }

  withoutVersion(file: string): Publish | undefined {
    return this.#withoutVersion.get(file);
  }

  /** When the last publish for `file` arrived. */
  lastAt(file: string): number | undefined {
    return this.#lastAt.get(file);
  }

  /**
   * The publish count at the barrier of `version` of `file`: made by `make` the first time,
   * the same for every later call about that version (a publish that came after it still counts
   * then). A barrier that got no answer is made again next time.
   */
  barrier(
    file: string,
    version: number,
    make: () => Promise<number | undefined>,
  ): Promise<number | undefined> {
    const known = this.#barriers.get(file);
    if (known?.version === version) return known.seq;
    const seq = make();
    this.#barriers.set(file, { version, seq });
    void seq.then(
      (value) => {
        if (value === undefined && this.#barriers.get(file)?.seq === seq)
          this.#barriers.delete(file);
      },
      () => {
        if (this.#barriers.get(file)?.seq === seq) this.#barriers.delete(file);
      },
    );
    return seq;
  }

  /** Resolves at the next publish, or after `ms`. */
  next(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.#waiters.add(done);
    });
  }
}

/** What currentDiagnostics needs of its connection. */
export interface DiagnosticsDeps {
  readonly documents: DocumentSync;
  readonly store: DiagnosticsStore;
  request<R>(method: string, params: object, options: { timeoutMs: number }): Promise<R>;
  /** The pull identifier when the server offers pull diagnostics; undefined when it does not. */
  pull(): { identifier?: string } | undefined;
  /** The request that proves the server took in a document (rule 3); undefined: none. */
  barrier(doc: DocumentSnapshot): { method: string; params: object } | undefined;
  readonly settleMs: number;
  readonly now: () => number;
}

export type DiagnosticsAnswer =
  | {
      readonly state: 'current';
      readonly document: DocumentSnapshot;
      readonly diagnostics: readonly Diagnostic[];
    }
  | { readonly state: 'analysing'; readonly document: DocumentSnapshot };

/** Diagnostics of `file` as it is on disk now, waiting at most `timeoutMs` (see the rule). */
export async function currentDiagnostics(
  deps: DiagnosticsDeps,
  file: string,
  timeoutMs: number,
): Promise<DiagnosticsAnswer> {
  const deadline = deps.now() + timeoutMs;
  const pull = deps.pull();
  if (pull) return pullDiagnostics(deps, file, pull.identifier, deadline);
  if (deps.store.versioned) {
    const doc = await deps.documents.sync(file);
    return waitVersioned(deps, doc, deadline);
  }
  return waitUnversioned(deps, file, deadline);
}

async function pullDiagnostics(
  deps: DiagnosticsDeps,
  file: string,
  identifier: string | undefined,
  deadline: number,
): Promise<DiagnosticsAnswer> {
  let doc = await deps.documents.sync(file);
  for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
    const left = deadline - deps.now();
    if (left <= 0) return { state: 'analysing', document: doc };
    let report: DocumentDiagnosticReport;
    try {
      report = await deps.request<DocumentDiagnosticReport>(
        'textDocument/diagnostic',
        { textDocument: { uri: doc.uri }, ...(identifier !== undefined ? { identifier } : {}) },
        { timeoutMs: left },
      );
    } catch (err) {
      if (err instanceof LspError && err.code === SERVER_CANCELLED) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
        doc = await deps.documents.sync(file);
        continue;
      }
      if (err instanceof LspError && err.kind === 'timeout')
        return { state: 'analysing', document: doc };
      throw err;
    }
    // Synced again meanwhile: the answer may be of either version; ask about the newest.
    const now = deps.documents.get(file);
    if (now && now.version !== doc.version) {
      doc = now;
      continue;
    }
    return {
      state: 'current',
      document: doc,
      diagnostics: report.kind === 'full' ? report.items : [],
    };
  }
}

async function waitVersioned(
  deps: DiagnosticsDeps,
  synced: DocumentSnapshot,
  deadline: number,
): Promise<DiagnosticsAnswer> {
  let doc = synced;
  for (;;) {
    doc = deps.documents.get(doc.path) ?? doc;
    const p = deps.store.withVersion(doc.path);
    if (p && p.version === doc.version)
      return { state: 'current', document: doc, diagnostics: p.diagnostics };
    const left = deadline - deps.now();
    if (left <= 0) return { state: 'analysing', document: doc };
    await deps.store.next(left);
  }
}

async function waitUnversioned(
  deps: DiagnosticsDeps,
  file: string,
  deadline: number,
): Promise<DiagnosticsAnswer> {
  const { store } = deps;
  // A burst for this file still arriving is about what the server had before: let it end.
  await settled(deps, file, deadline);
  let doc = await deps.documents.sync(file, { delivery: 'open' });
  let after = await barrierSeq(deps, doc, deadline);
  for (;;) {
    if (store.versioned) return waitVersioned(deps, doc, deadline);
    const now = deps.documents.get(file);
    if (now && now.version !== doc.version) {
      // Synced again by someone else: follow the newest content, by a fresh open again.
      doc = await deps.documents.sync(file, { delivery: 'open' });
      after = await barrierSeq(deps, doc, deadline);
      continue;
    }
    const left = deadline - deps.now();
    if (after === undefined) return { state: 'analysing', document: doc };
    const p = store.withoutVersion(file);
    if (p && p.seq > after) {
      const quiet = deps.now() - (store.lastAt(file) ?? 0);
      if (quiet >= deps.settleMs)
        return { state: 'current', document: doc, diagnostics: p.diagnostics };
      if (left <= 0) return { state: 'analysing', document: doc };
      await store.next(Math.min(left, deps.settleMs - quiet));
      continue;
    }
    if (left <= 0) return { state: 'analysing', document: doc };
    await store.next(left);
  }
}

/** Waits until no publish for `file` arrived for settleMs (or the deadline). */
async function settled(deps: DiagnosticsDeps, file: string, deadline: number): Promise<void> {
  for (;;) {
    const last = deps.store.lastAt(file);
    const quiet = last === undefined ? Infinity : deps.now() - last;
    const left = deadline - deps.now();
    if (quiet >= deps.settleMs || left <= 0) return;
    await deps.store.next(Math.min(left, deps.settleMs - quiet));
  }
}

/**
 * The publish count when the server answered a request about `doc` sent after its sync: later
 * publishes were made after it took in the sync. Undefined when it did not answer in time.
 * Without a barrier request (the server offers neither), the count at the sync. One barrier per
 * version: a later call about the same content counts the publishes since the first one.
 */
function barrierSeq(
  deps: DiagnosticsDeps,
  doc: DocumentSnapshot,
  deadline: number,
): Promise<number | undefined> {
  return deps.store.barrier(doc.path, doc.version, () => askBarrier(deps, doc, deadline));
}

async function askBarrier(
  deps: DiagnosticsDeps,
  doc: DocumentSnapshot,
  deadline: number,
): Promise<number | undefined> {
  const barrier = deps.barrier(doc);
  if (!barrier) return deps.store.seq;
  const left = deadline - deps.now();
  if (left <= 0) return undefined;
  try {
    await deps.request(barrier.method, barrier.params, { timeoutMs: left });
  } catch (err) {
    // An error answer is an answer too: the server has read up to here. A timeout is not.
    if (err instanceof LspError && err.kind === 'timeout') return undefined;
    if (!(err instanceof LspError) || err.kind !== 'response') throw err;
  }
  return deps.store.seq;
}
