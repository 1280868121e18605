/**
 * The work a language server says it is doing — LSP work-done progress: a token made by
 * `window/workDoneProgress/create`, then `$/progress` begin, report…, end — and questions
 * asked once that work is done.
 *
 * Servers report loading a project this way and answer from what they know meanwhile:
 * typescript-language-server reports "Initializing JS/TS language features…" from tsserver's
 * projectLoadingStart to its projectLoadingFinish, and until then routes a definition to its
 * syntax-only server, which answers a use of an imported name with the import line. gopls,
 * rust-analyzer and jdtls report their loading and indexing the same way.
 *
 * Guarantees:
 * - Work runs from its token's create or its begin until its end; a token created and not begun
 *   runs for at most `createdGraceMs` (a server may make a token it never uses) and is named
 *   in `busy` only when nothing else can be (it has no title yet). At most
 *   MAX_TRACKED tokens are followed (a server cannot grow the daemon with tokens); more are
 *   not.
 * - `ask(send)`: waits until no work runs (at most `waitMs`), sends, and when work was created
 *   or began while the question was out, or runs at its answer, waits for it and sends again:
 *   an answer given while a load started is never taken as whole. With no work reported, the
 *   question is sent at once and once: a warm server never waits.
 * - When the wait ran out, the last answer comes with `busy`, the titles of the work still
 *   running (or begun while it was asked): it may be partial, and says so. Work a question
 *   already waited `waitMs` for is not waited for again: later answers come at once, with
 *   `busy`, until it ends (a long index or check does not make every question wait).
 * - `dispose()` (the server is gone) ends every wait and follows nothing more.
 */
import type {
  ProgressToken,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageserver-protocol/node';

export const DEFAULT_CREATED_GRACE_MS = 1_000;
export const MAX_TRACKED = 64;
/** How much of a title is kept (a server's text, shown to agents). */
const TITLE_CHARS = 120;
/** What a token created and not begun is called. */
const UNTITLED = 'work it announced';

interface Work {
  /** When it was created, or began. */
  since: number;
  title: string | undefined;
  begun: boolean;
  /** A question waited its whole bound for it: later ones do not wait for it again. */
  waitedOut: boolean;
}

export interface ProgressOptions {
  readonly now?: () => number;
  readonly createdGraceMs?: number;
}

export interface AskOptions {
  /** How long to wait, in all, for the server's work to end. */
  readonly waitMs: number;
  readonly signal?: AbortSignal;
}

export interface BusyAnswer<R> {
  readonly result: R;
  /** Present when the server was still at work: what it said it was doing. */
  readonly busy?: readonly string[];
}

export class ServerProgress {
  readonly #now: () => number;
  readonly #graceMs: number;
  readonly #work = new Map<ProgressToken, Work>();
  readonly #waiters = new Set<() => void>();
  /** Counts every create and begin: a question compares it before and after. */
  #epoch = 0;
  /** Titles of the latest begins, by epoch, to name work that came and went during a question. */
  #begun: { epoch: number; title: string }[] = [];
  #disposed = false;

  constructor(options: ProgressOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#graceMs = Math.max(0, options.createdGraceMs ?? DEFAULT_CREATED_GRACE_MS);
  }

  /** `window/workDoneProgress/create`. False when the token is not followed (bound, disposed). */
  created(token: ProgressToken): boolean {
    if (this.#disposed) return false;
    if (this.#work.has(token)) return true;
    if (this.#work.size >= MAX_TRACKED) return false;
    this.#work.set(token, { since: this.#now(), title: undefined, begun: false, waitedOut: false });
    this.#changed(true);
    return true;
  }

  /** `$/progress` of a created token. */
  update(
    token: ProgressToken,
    value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd,
  ): void {
    const work = this.#work.get(token);
    if (!work) return;
    if (value.kind === 'end') {
      this.#work.delete(token);
      this.#changed(false);
    } else if (value.kind === 'begin' && !work.begun) {
      work.begun = true;
      work.since = this.#now();
      work.title = typeof value.title === 'string' ? value.title.slice(0, TITLE_CHARS) : undefined;
      this.#begun = [
        ...this.#begun.slice(-7),
        { epoch: this.#epoch + 1, title: this.#titleOf(work) },
      ];
      this.#changed(true);
    }
  }

  /** The titles of the work begun and running now. */
  running(): string[] {
    return this.#running()
      .filter((w) => w.begun)
      .map((w) => this.#titleOf(w));
  }

  /** `send`, when the server's work is done (see the guarantees). */
  async ask<R>(send: () => Promise<R>, options: AskOptions): Promise<BusyAnswer<R>> {
    const deadline = this.#now() + options.waitMs;
    for (;;) {
      await this.#idle(deadline, options.signal);
      const epoch = this.#epoch;
      const result = await send();
      const began = this.#epoch !== epoch;
      const waited = this.#running().filter((w) => !w.waitedOut);
      if (!began && waited.length === 0) {
        const busy = this.running();
        return busy.length === 0 ? { result } : { result, busy };
      }
      if (this.#now() >= deadline || options.signal?.aborted || this.#disposed) {
        for (const w of this.#running()) w.waitedOut = true;
        const running = this.running();
        const since = this.#begun.filter((b) => b.epoch > epoch).map((b) => b.title);
        return {
          result,
          busy: running.length > 0 ? running : since.length > 0 ? since : [UNTITLED],
        };
      }
    }
  }

  /** The server is gone: every wait ends, nothing more is followed. */
  dispose(): void {
    this.#disposed = true;
    this.#work.clear();
    this.#wake();
  }

  /** Waits until no work that is waited for runs, or `deadline`; what still runs then is waited out. */
  async #idle(deadline: number, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const waited = this.#running().filter((w) => !w.waitedOut);
      if (waited.length === 0 || signal?.aborted || this.#disposed) return;
      const now = this.#now();
      if (now >= deadline) {
        for (const w of waited) w.waitedOut = true;
        return;
      }
      // A token created and not begun stops running at its grace's end: wake then to see.
      const expiries = waited.filter((w) => !w.begun).map((w) => w.since + this.#graceMs);
      await this.#next(Math.min(deadline, ...expiries) - now, signal);
    }
  }

  #running(): Work[] {
    const now = this.#now();
    return [...this.#work.values()].filter((w) => w.begun || now - w.since < this.#graceMs);
  }

  #titleOf(work: Work): string {
    return work.title === undefined || work.title.trim() === '' ? UNTITLED : work.title;
  }

  #changed(started: boolean): void {
    if (started) this.#epoch += 1;
    this.#wake();
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves at the next change, after `ms`, or when `signal` aborts. */
  #next(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
      this.#waiters.add(done);
    });
  }
}
