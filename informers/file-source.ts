/**
 * One config file as a watched source: watch, debounce, read (bounded), parse JSONC, validate,
 * keep the last good content, and tell listeners only about real changes.
 *
 * Guarantees:
 * - Settle per file (settle.ts): a change is read at once and applied when it is complete and
 *   the file stayed unchanged for the quiet period; an incomplete state (unparseable, emptied,
 *   deleted) waits for up to `debounceMs` of quiet (default 300 ms, at least 60 ms), as the old
 *   trailing window did. The quiet period scales with that ceiling (40 ms at 300 ms), so one
 *   knob says how patient to be: a ceiling of minutes leaves every read to reload(). A burst of
 *   saves faster than the quiet period yields one apply.
 * - A missing file is an empty source (`exists: false`, no errors): deleting a file removes its
 *   servers, it is not an error. An empty or comment-only file is empty too.
 * - A file over the size cap (default 4 MiB) is refused unread, with an error.
 * - Keep-last-good: when a read fails (syntax, validation, size, permission), `document` and
 *   `value` stay what they were after the last good read and `errors` say what is wrong, each
 *   with the file, a 1-based line and column, and a message.
 * - Listeners hear a change only when the parsed document changed in a hot way (the optional
 *   restart gate decides; without one every content change is hot) or when the errors changed.
 *   Format-only and comment-only edits, rewriting the same content, and prefix-sharing siblings
 *   emit nothing. A restart-only edit is still taken in silently, so the snapshot is the file's
 *   truth and a later hot edit does not resurrect the old value.
 * - Reads are serialised: one at a time per file, in order.
 * - refresh() reads now (a settle in progress gives way at once), commits and notifies like a
 *   watcher event would;
 *   peek() reads now and commits nothing, notifies no one.
 * - A source can be shared by many sessions (see shared-sources.ts): it holds no per-session
 *   state, and every listener sees the same snapshots.
 */
import {
  DEFAULT_MAX_BYTES,
  jsonEqual,
  readFileCapped,
  type ConfigIssue,
  type ReadResult,
} from '../api/index.js';
import { LineIndex, locateIssue, parseJsonc } from './parse.js';
import { fileStamp, settle } from './settle.js';
import type { SourceError } from './types.js';
import { watchPath, type PathWatcher } from './watch-path.js';

export const DEFAULT_DEBOUNCE_MS = 300;
/** chokidar drops a `change` within 50 ms of the previous one; the ceiling must outlast that. */
export const MIN_DEBOUNCE_MS = 60;
/**
 * After applying, a settle keeps looking until this long after the last watcher event: a write
 * that chokidar's 50 ms change throttle swallowed produces no event, so only a look at the
 * file's stamps after the throttle has passed can see it.
 */
const THROTTLE_GUARD_MS = 60;
/**
 * How long a complete file must stay unchanged before it is applied. Longer than the gaps of an
 * editor's or a tool's multi-write save (tens of ms), short beside the 300 ms window it replaces.
 */
export const DEFAULT_SETTLE_MS = 40;

/** The quiet period of a ceiling: DEFAULT_SETTLE_MS at DEFAULT_DEBOUNCE_MS, in proportion. */
export function settleMsFor(debounceMs: number): number {
  return Math.max(1, Math.round((debounceMs * DEFAULT_SETTLE_MS) / DEFAULT_DEBOUNCE_MS));
}

export interface Validated<T> {
  readonly value: T;
  readonly errors: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
}

export interface FileSourceOptions<T> {
  readonly file: string;
  /** Turns a parsed document into the source's value; issues carry paths inside the document. */
  readonly validate: (document: unknown) => Validated<T>;
  /** The value of a missing or empty file. */
  readonly empty: T;
  /** Restart gate: false suppresses notification of a content change. Absent: all hot. */
  readonly isHotChange?: (before: unknown, after: unknown) => boolean;
  /** The ceiling: how long an incomplete state is waited on. */
  readonly debounceMs?: number;
  /** The quiet period after a complete read; default settleMsFor(the ceiling). */
  readonly settleMs?: number;
  readonly maxBytes?: number;
}

export interface FileSnapshot<T> {
  readonly file: string;
  /** The file is on disk now (independent of whether it could be read). */
  readonly exists: boolean;
  /** The last good parsed document; `undefined` when there never was one or the file is gone. */
  readonly document: unknown;
  readonly value: T;
  /** Problems of the latest read; empty when it was good. */
  readonly errors: readonly SourceError[];
  /** Warnings of the last good read. */
  readonly warnings: readonly SourceError[];
}

export interface FileSource<T> {
  readonly file: string;
  /** Starts watching and reads once (no notification); idempotent. */
  start(): Promise<void>;
  snapshot(): FileSnapshot<T>;
  /** Notified after each committed read that changed content (hot) or errors. */
  onChange(listener: (snapshot: FileSnapshot<T>) => void): () => void;
  /** Notified after every committed read, `changed` saying whether onChange fired (diagnostics). */
  onRead(listener: (snapshot: FileSnapshot<T>, changed: boolean) => void): () => void;
  refresh(): Promise<FileSnapshot<T>>;
  peek(): Promise<FileSnapshot<T>>;
  close(): Promise<void>;
}

/** A file with nothing in it (or no file): no document, the empty value, no problems. */
function emptySnapshot<T>(file: string, exists: boolean, empty: T): FileSnapshot<T> {
  return { file, exists, document: undefined, value: empty, errors: [], warnings: [] };
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function tooLargeMessage(size: number, maxBytes: number): string {
  return `file is ${mib(size)}, larger than the ${mib(maxBytes)} limit, so it was not read; keep only configuration in it`;
}

function fileError(file: string, message: string): SourceError {
  return { file, line: 0, column: 0, message };
}

/**
 * The snapshot a read leads to, given the previous one (pure; exported for tests).
 * Any failed read keeps the previous document, value and warnings and sets `errors`.
 */
export function evaluateRead<T>(
  previous: FileSnapshot<T>,
  read: ReadResult,
  options: Pick<FileSourceOptions<T>, 'validate' | 'empty' | 'maxBytes'>,
): FileSnapshot<T> {
  const file = previous.file;
  const keep = (errors: readonly SourceError[]): FileSnapshot<T> => ({
    ...previous,
    exists: true,
    errors,
  });
  switch (read.kind) {
    case 'missing':
      return emptySnapshot(file, false, options.empty);
    case 'tooLarge':
      return keep([
        fileError(file, tooLargeMessage(read.size, options.maxBytes ?? DEFAULT_MAX_BYTES)),
      ]);
    case 'error':
      return keep([fileError(file, read.message)]);
    case 'ok': {
      const parsed = parseJsonc(file, read.text, previous.document);
      if (parsed.errors.length > 0) return keep(parsed.errors);
      if (parsed.document === undefined) return emptySnapshot(file, true, options.empty);
      const validated = options.validate(parsed.document);
      // Built only when something must be located: most saves have nothing to report.
      let index: LineIndex | undefined;
      const locate = (issue: ConfigIssue): SourceError =>
        locateIssue(file, read.text, parsed.tree(), issue, (index ??= new LineIndex(read.text)));
      if (validated.errors.length > 0) return keep(validated.errors.map(locate));
      return {
        file,
        exists: true,
        document: parsed.document,
        value: validated.value,
        errors: [],
        warnings: [...parsed.warnings, ...validated.warnings.map(locate)],
      };
    }
  }
}

/** Whether listeners must hear about the move from `before` to `after`. */
export function isNotableChange<T>(
  before: FileSnapshot<T>,
  after: FileSnapshot<T>,
  isHotChange?: (before: unknown, after: unknown) => boolean,
): boolean {
  if (!jsonEqual(before.errors, after.errors)) return true;
  // Equal documents are the same object (structural sharing), so this is the cheap common case.
  if (before.document === after.document) return false;
  // The gate finds no hot key in equal documents (e.g. keys reordered), so it covers equality.
  if (isHotChange !== undefined) return isHotChange(before.document, after.document);
  return !jsonEqual(before.document, after.document);
}

function notifyAll<A extends unknown[]>(
  listeners: Iterable<(...args: A) => void>,
  ...args: A
): void {
  for (const listener of [...listeners]) {
    try {
      listener(...args);
    } catch (err) {
      // One broken subscriber must not starve the others (sources are shared by sessions).
      process.emitWarning(`mcpctl informer listener failed: ${String(err)}`);
    }
  }
}

export function createFileSource<T>(options: FileSourceOptions<T>): FileSource<T> {
  const file = options.file;
  const debounceMs = Math.max(options.debounceMs ?? DEFAULT_DEBOUNCE_MS, MIN_DEBOUNCE_MS);
  const settleMs = Math.min(options.settleMs ?? settleMsFor(debounceMs), debounceMs);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let current = emptySnapshot(file, false, options.empty);
  const changeListeners = new Set<(s: FileSnapshot<T>) => void>();
  const readListeners = new Set<(s: FileSnapshot<T>, changed: boolean) => void>();
  let started: Promise<void> | undefined;
  let closed = false;
  let watcher: PathWatcher | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const readNow = async (): Promise<FileSnapshot<T>> =>
    evaluateRead(current, await readFileCapped(file, maxBytes), { ...options, maxBytes });

  const commit = (next: FileSnapshot<T>, notify: boolean): FileSnapshot<T> => {
    const changed = notify && isNotableChange(current, next, options.isHotChange);
    current = next;
    if (changed) notifyAll(changeListeners, next);
    notifyAll(readListeners, next, changed);
    return next;
  };

  /** Runs `task` after every earlier read of this file (reads are serialised). */
  const serialised = <R>(task: () => Promise<R>): Promise<R> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };

  /** One read + commit now. */
  const sync = (notify: boolean): Promise<FileSnapshot<T>> =>
    serialised(async () => {
      if (closed) return current;
      if (watcher) await watcher.revalidate();
      const next = await readNow();
      if (closed) return current;
      return commit(next, notify);
    });

  let settling = false;
  let lastPokeAt = 0;
  let pokes = 0;
  /** Set by refresh(): a settle still waiting gives way to the read refresh() does now. */
  let preempted = false;
  /** Ends the settle's current quiet period early (refresh, close). */
  let wake: (() => void) | undefined;
  const settleDeps = {
    stamp: () => fileStamp(file),
    read: async () => {
      if (watcher) await watcher.revalidate();
      const next = await readNow();
      // Emptied or deleted where there was content: the middle of a truncate-then-write or a
      // delete-then-recreate until the ceiling says otherwise.
      const complete =
        next.errors.length === 0 && (next.document !== undefined || current.document === undefined);
      return { next, complete };
    },
    sleep: (ms: number) =>
      new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, ms);
        timer.unref();
        wake = done;
      }),
    now: () => Date.now(),
    closed: () => closed || preempted,
  };

  const onPoke = (): void => {
    if (closed) return;
    lastPokeAt = Date.now();
    pokes += 1;
    // A running settle sees the change by its stamps, up to its guard after the last event.
    if (settling) return;
    settling = true;
    preempted = false;
    // Errors are impossible here in practice (reads report failures as snapshots); keep the
    // chain alive regardless.
    serialised(async () => {
      try {
        for (;;) {
          const done = await settle(settleDeps, { quietMs: settleMs, ceilingMs: debounceMs });
          if (done === undefined || closed) return;
          commit(done.next, true);
          // Settle again only when the file really moved on since it was read, looking once
          // more after the watcher's throttle (see THROTTLE_GUARD_MS); the apply above is not
          // delayed by this.
          const guard = lastPokeAt + THROTTLE_GUARD_MS - Date.now();
          if (guard > 0) await settleDeps.sleep(guard);
          if (settleDeps.closed()) return;
          const seen = pokes;
          // An event during the look may be of a write the look missed: go round once more.
          if ((await fileStamp(file)) === done.stamp && pokes === seen) return;
        }
      } finally {
        settling = false;
      }
    }).catch(() => undefined);
  };

  return {
    file,
    start() {
      started ??= (async () => {
        watcher = watchPath(file, onPoke);
        await sync(false);
      })();
      return started;
    },
    snapshot: () => current,
    onChange(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    onRead(listener) {
      readListeners.add(listener);
      return () => readListeners.delete(listener);
    },
    refresh() {
      if (settling) {
        preempted = true;
        wake?.();
      }
      return sync(true);
    },
    peek: readNow,
    async close() {
      closed = true;
      wake?.();
      await queue;
      await watcher?.close();
      changeListeners.clear();
      readListeners.clear();
    },
  };
}
