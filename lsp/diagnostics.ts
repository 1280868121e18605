/**
 * Diagnostics of a file as it is on disk now — never of an older content.
 *
 * A server reports diagnostics by pushing them (`textDocument/publishDiagnostics`), whenever it
 * is done analysing, or, when it offers it, on request (`textDocument/diagnostic`, "pull").
 * `currentDiagnostics` syncs the file (documents.ts) and then asks, or waits, bounded, for
 * diagnostics of exactly the content it synced. Which diagnostics are "of that content" is the
 * rule below: the first rule the server allows is used, and the earlier a rule, the more it
 * rests on what the server says rather than on time.
 *
 * The rule:
 * 1. Pull, when the server offers it (statically or by registration): the answer to a
 *    `textDocument/diagnostic` sent after the sync is about the synced content (a server
 *    handles a document's notifications and requests in order). A "server cancelled" answer is
 *    asked again while time is left; any other error answer is the answer (the caller is told
 *    the server's reason), never a wait.
 * 2. Pull through the server's own command, when it offers one we know and the connection
 *    allows it (`serverCommand`, on by default): typescript-language-server's
 *    `typescript.tsserverRequest` asks its tsserver for the file's syntax, semantic and
 *    suggestion diagnostics (tsserver-diagnostics.ts says what the server does and why this is
 *    exact). Sent after the sync, on the queue the sync went through, its answers are of the
 *    synced content, whole: no publish is waited for. An error or malformed answer falls back
 *    to the publishes (rules 3–4) within the same bound, so a server that lists the command and
 *    refuses it is answered as one that never listed it.
 *    Rules 1–2: if the file was synced again before the answer came, the answer may be of
 *    either content, and the newest is asked about again.
 * 3. Push with a version (`versionSupport`): a publish counts only when its `version` is the
 *    synced version. Of several for it, the last counts; one for an older version arriving
 *    late neither counts nor hides it. (bash-language-server publishes each
 *    content once, after its lint, with its version; pyright publishes versions too.)
 * 4. Push without a version — the fallback for a server that gives no signal of its own: the
 *    content must
 *    reach the server by a fresh `didOpen` (documents.ts, `delivery: 'open'`), because servers
 *    publish for every open but not always for a change (typescript-language-server stays
 *    silent when a file was clean and is clean again, so a wait for "the next publish" would
 *    hang). The barrier of the opened version is the first answer the server gave to a request
 *    about the document after the open (any question — a definition, a hover — or, when none
 *    came yet, a `documentSymbol`, else `hover`, sent for it): the server has then taken in the
 *    open, and what it published before is about older content. A publish counts when it
 *    arrived after the barrier, and it is the answer once `settleMs` passed without another
 *    publish for the file. Why a quiet time, and only here: such a server may publish one
 *    content in passes (typescript-language-server: syntax, then the semantic check's type
 *    errors, 50 ms or more apart) and nothing in a publish, nor in the protocol, says which
 *    pass is the last; a server that says more is read by rules 1–3 instead. Before the sync,
 *    a burst of publishes still arriving for the file is let settle first. The barrier is made
 *    once per version: a later call about the same content takes the latest publish since it,
 *    so asking twice does not wait for a publish that already came, and a file an earlier
 *    question opened is answered at once when the server published for it since.
 *    When the server published after a first open of the file (nothing closed before it) but
 *    before its barrier, that publish may be for this content and none may follow: the
 *    document is opened afresh (a new version, its own barrier) once, so a call never waits for
 *    a publish that already came.
 *    Limits, said plainly: a server that, after answering the barrier, still publishes results
 *    it computed for older content could be taken at its word; a pass that ends more than
 *    `settleMs` after the previous one is seen by the next call, not this one.
 * 5. A server is taken as versioned as soon as one publish carried a version; before that
 *    rule 4 applies (rule 4 is safe for versioned servers too, only slower).
 * 6. Nothing counts within the bound → `analysing`: the server is still working; never an
 *    older version's diagnostics as current.
 * Not a signal here: the server's work-done progress. No server we know ties it to its
 * diagnostics (typescript-language-server reports only its project load and ends it at its
 * first diagnostics event, a syntax pass; pyright's analysis progress ends with publishes
 * rule 3 already reads by version), so a call neither waits for reported work nor answers at
 * its end: work that never ends, or a flood of it, changes no answer and no wait.
 * If the file is synced again meanwhile (another agent, a newer content on disk), the answer
 * is for the newest version, which it names.
 */
import type { Diagnostic, PublishDiagnosticsParams } from 'vscode-languageserver-protocol/node';
import { LspError } from './errors.js';
import type { DocumentSnapshot, DocumentSync } from './documents.js';
import { pathOf } from './workspace-files.js';

export const DEFAULT_SETTLE_MS = 200;
/** LSP's "the server cancelled this request; ask again" (LSPErrorCodes.ServerCancelled). */
const SERVER_CANCELLED = -32802;
/**
 * Files whose publishes the store keeps: a server that publishes for a whole workspace (or a
 * hostile one, for a million made-up files) must not grow the daemon that every agent shares.
 * Only files an agent asks about are read, and those are open documents, which the store never
 * drops (`keep`); what goes is what nobody waits for.
 */
export const DEFAULT_MAX_FILES = 2_000;
/** Diagnostics kept over all files (the newest publish is kept whatever its size). */
export const DEFAULT_MAX_DIAGNOSTICS = 50_000;

interface Publish {
  /** Arrival order over every publish of the connection. */
  readonly seq: number;
  readonly at: number;
  readonly version: number | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

/** What the store knows of one file. */
interface FileRecord {
  /** The latest publish of the highest version published, and the latest without a version. */
  withVersion?: Publish;
  withoutVersion?: Publish;
  lastAt?: number;
  /** Its latest `didOpen`: the version, the publish count then, and whether it followed a close. */
  opened?: { version: number; seq: number; reopened: boolean };
  /** The barrier of its current version (rule 4): one per version, shared. */
  barrier?: { version: number; seq: Promise<number | undefined> };
}

export interface DiagnosticsStoreOptions {
  readonly now?: () => number;
  readonly maxFiles?: number;
  readonly maxDiagnostics?: number;
  /** Files never dropped (the open documents: they are what agents wait on; few, bounded). */
  readonly keep?: (file: string) => boolean;
}

/**
 * Every publish of one connection, as it arrived, within bounds: past `maxFiles` files or
 * `maxDiagnostics` diagnostics, the files published (or asked about) least recently go first,
 * except those `keep` names and the one just published, so the bounds hold but for those.
 */
export class DiagnosticsStore {
  #seq = 0;
  #versioned = false;
  #kept = 0;
  readonly #now: () => number;
  readonly #maxFiles: number;
  readonly #maxDiagnostics: number;
  readonly #keep: (file: string) => boolean;
  /** By file path, in the order they were last published or asked about (oldest first). */
  readonly #files = new Map<string, FileRecord>();
  readonly #waiters = new Set<() => void>();

  constructor(options: DiagnosticsStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxFiles = Math.max(1, options.maxFiles ?? DEFAULT_MAX_FILES);
    this.#maxDiagnostics = Math.max(0, options.maxDiagnostics ?? DEFAULT_MAX_DIAGNOSTICS);
    this.#keep = options.keep ?? (() => false);
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
    const record = this.#use(file);
    // Versions only grow (documents.ts): a lower one is a late publish for older content, and
    // must not hide the newer one kept (rule 3).
    const older = version !== undefined && version < (record.withVersion?.version ?? -Infinity);
    if (older) {
      this.#trim(file);
      return;
    }
    const replaced = version === undefined ? record.withoutVersion : record.withVersion;
    this.#kept += publish.diagnostics.length - (replaced?.diagnostics.length ?? 0);
    if (version === undefined) record.withoutVersion = publish;
    else record.withVersion = publish;
    record.lastAt = publish.at;
    this.#trim(file);
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

  /** Files the store keeps something of, and the diagnostics it keeps (for stats and tests). */
  get size(): { readonly files: number; readonly diagnostics: number } {
    return { files: this.#files.size, diagnostics: this.#kept };
  }

  withVersion(file: string): Publish | undefined {
    return this.#files.get(file)?.withVersion;
  }

  withoutVersion(file: string): Publish | undefined {
    return this.#files.get(file)?.withoutVersion;
  }

  /** When the last publish for `file` arrived. */
  lastAt(file: string): number | undefined {
    return this.#files.get(file)?.lastAt;
  }

  /** `version` of `file` reached the server by a `didOpen` now; `reopened`: right after a close. */
  opened(file: string, version: number, reopened: boolean): void {
    this.#use(file).opened = { version, seq: this.#seq, reopened };
    this.#trim(file);
  }

  /** The latest `didOpen` of `file`. */
  openOf(file: string): { version: number; seq: number; reopened: boolean } | undefined {
    return this.#files.get(file)?.opened;
  }

  /**
   * The server answered a request about `version` of `file`, sent after its open: the first such
   * answer is the version's barrier (rule 4), unless one was made already.
   */
  answered(file: string, version: number): void {
    const record = this.#files.get(file);
    if (record?.opened?.version !== version || record.barrier?.version === version) return;
    record.barrier = { version, seq: Promise.resolve(this.#seq) };
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
    const record = this.#use(file);
    if (record.barrier?.version === version) return record.barrier.seq;
    const seq = make();
    record.barrier = { version, seq };
    this.#trim(file);
    const forget = (): void => {
      const now = this.#files.get(file);
      if (now?.barrier?.seq === seq) delete now.barrier;
    };
    void seq.then((value) => {
      if (value === undefined) forget();
    }, forget);
    return seq;
  }

  /** The record of `file`, made the most recently used. */
  #use(file: string): FileRecord {
    const record = this.#files.get(file) ?? {};
    this.#files.delete(file);
    this.#files.set(file, record);
    return record;
  }

  /** Drops the least recently used files until both bounds hold, but never `current` or kept ones. */
  #trim(current: string): void {
    for (const [file, record] of this.#files) {
      if (this.#files.size <= this.#maxFiles && this.#kept <= this.#maxDiagnostics) return;
      if (file === current || this.#keep(file)) continue;
      this.#files.delete(file);
      this.#kept -=
        (record.withVersion?.diagnostics.length ?? 0) +
        (record.withoutVersion?.diagnostics.length ?? 0);
    }
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

/** How a server is asked for a document's diagnostics (rules 1 and 2). */
export interface DiagnosticsPull {
  /** 'pull': `textDocument/diagnostic` (rule 1); 'command': the server's own command (rule 2). */
  readonly rule: 'pull' | 'command';
  /** The diagnostics of `doc` as the server has it when it reads the request. */
  ask(doc: DocumentSnapshot, timeoutMs: number): Promise<readonly Diagnostic[]>;
}

/** What currentDiagnostics needs of its connection. */
export interface DiagnosticsDeps {
  readonly documents: DocumentSync;
  readonly store: DiagnosticsStore;
  request<R>(method: string, params: object, options: { timeoutMs: number }): Promise<R>;
  /** How to pull diagnostics (rules 1–2); undefined when the server only publishes. */
  pull(): DiagnosticsPull | undefined;
  /** The request that proves the server took in a document (rule 4); undefined: none. */
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
  if (pull) return pullDiagnostics(deps, file, pull, deadline);
  return pushedDiagnostics(deps, file, deadline);
}

/** Rules 3–4: what the server published for the synced content. */
async function pushedDiagnostics(
  deps: DiagnosticsDeps,
  file: string,
  deadline: number,
): Promise<DiagnosticsAnswer> {
  if (deps.store.versioned) {
    const doc = await deps.documents.sync(file);
    return waitVersioned(deps, doc, deadline);
  }
  return waitUnversioned(deps, file, deadline);
}

/** Rules 1–2: the answer to a request sent after the sync. */
async function pullDiagnostics(
  deps: DiagnosticsDeps,
  file: string,
  pull: DiagnosticsPull,
  deadline: number,
): Promise<DiagnosticsAnswer> {
  let doc = await deps.documents.sync(file);
  for (let pause = 20; ; pause = Math.min(pause * 2, 500)) {
    const left = deadline - deps.now();
    if (left <= 0) return { state: 'analysing', document: doc };
    let diagnostics: readonly Diagnostic[];
    try {
      diagnostics = await pull.ask(doc, left);
    } catch (err) {
      if (err instanceof LspError && err.code === SERVER_CANCELLED) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
        doc = await deps.documents.sync(file);
        continue;
      }
      if (err instanceof LspError && err.kind === 'timeout')
        return { state: 'analysing', document: doc };
      // Rule 2: a command the server refused; its publishes still say what it found.
      if (pull.rule === 'command' && err instanceof LspError && err.kind === 'response')
        return pushedDiagnostics(deps, file, deadline);
      throw err;
    }
    // Synced again meanwhile: the answer may be of either version; ask about the newest.
    const now = deps.documents.get(file);
    if (now && now.version !== doc.version) {
      doc = now;
      continue;
    }
    return { state: 'current', document: doc, diagnostics };
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
  let afresh = false;
  for (;;) {
    if (store.versioned) return waitVersioned(deps, doc, deadline);
    const now = deps.documents.get(file);
    const moved = now !== undefined && now.version !== doc.version;
    // The server published for a first open before its barrier: open afresh, once (rule 4).
    const again: boolean = !moved && !afresh && publishedBefore(deps, doc, after);
    if (moved || again) {
      // Synced again by someone else: follow the newest content, by a fresh open again.
      afresh ||= again;
      doc = await deps.documents.sync(file, { delivery: again ? 'fresh' : 'open' });
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

/**
 * True when the latest publish for `doc`'s file came after a first open of this version (no
 * close before it) but not after its barrier: it may be for this content, and the server may
 * not publish again (rule 4).
 */
function publishedBefore(
  deps: DiagnosticsDeps,
  doc: DocumentSnapshot,
  barrier: number | undefined,
): boolean {
  const opened = deps.store.openOf(doc.path);
  const p = deps.store.withoutVersion(doc.path);
  if (!opened || opened.version !== doc.version || opened.reopened || !p) return false;
  return barrier !== undefined && p.seq > opened.seq && p.seq <= barrier;
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
