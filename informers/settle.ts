/**
 * The settle rule: when is a changed file ready to apply (DESIGN §4 rule 15, our §5 choice)?
 *
 * A fixed trailing window makes every save wait the whole window, though an editor's save is
 * usually one atomic write or rename that is complete the moment its first event arrives. So:
 * read at once, then apply as soon as the content is *complete* and the file has stayed
 * *unchanged* for a short quiet period; fall back to waiting for quiet up to the ceiling (the
 * old window, `--debounce-ms`) when the content is not complete.
 *
 * - complete: it was read, it parses, and it is not empty or gone where the applied version
 *   had content (a truncate-then-write, or a delete-then-recreate, passes through exactly
 *   those states). A whole JSON document cannot be a prefix of a different one, so a file
 *   caught mid-write never parses as complete.
 * - unchanged: the file's identity and stamps (inode, size, mtime, ctime, in ns) are the same
 *   before the read and a quiet period after it. This looks at the file itself, so writes that
 *   the watcher merged or dropped (chokidar throttles changes 50 ms apart) still count.
 *
 * Guarantees:
 * - What is applied was read while the file did not change for `quietMs` afterwards: never an
 *   intermediate state of a burst that kept writing faster than that.
 * - An incomplete state is applied only after `ceilingMs` without any change (then keep-last-
 *   good and the empty-file rules decide, exactly as with the old window).
 * - One settle runs at a time per file (the caller serialises); `closed()` ends it early
 *   without applying anything.
 */
import { stat } from 'node:fs/promises';

/** A file's stamps, or `missing`; equal strings ⇒ the file did not change in between. */
export async function fileStamp(file: string): Promise<string> {
  try {
    const s = await stat(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return 'missing';
  }
}

export interface SettleStep<S> {
  /** The snapshot this read leads to (not applied yet). */
  readonly next: S;
  /** See the module comment. */
  readonly complete: boolean;
}

export interface SettleDeps<S> {
  stamp(): Promise<string>;
  /** Reads the file and evaluates it against what is applied now. */
  read(): Promise<SettleStep<S>>;
  sleep(ms: number): Promise<void>;
  now(): number;
  closed(): boolean;
}

export interface SettleOptions {
  /** How long the file must stay unchanged after a read. */
  readonly quietMs: number;
  /** The longest an incomplete state is waited on (measured from the last change seen). */
  readonly ceilingMs: number;
}

/**
 * Resolves with the snapshot to apply and the file's stamp it was read under, or `undefined`
 * when closed first.
 */
export async function settle<S>(
  deps: SettleDeps<S>,
  o: SettleOptions,
): Promise<{ next: S; stamp: string } | undefined> {
  let lastChange = deps.now();
  let before = await deps.stamp();
  let step = await deps.read();
  for (;;) {
    if (deps.closed()) return undefined;
    await deps.sleep(o.quietMs);
    if (deps.closed()) return undefined;
    const after = await deps.stamp();
    if (after !== before) {
      lastChange = deps.now();
      before = after;
      step = await deps.read();
      continue;
    }
    if (step.complete || deps.now() - lastChange >= o.ceilingMs)
      return { next: step.next, stamp: after };
  }
}
