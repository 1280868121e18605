/**
 * Decisions made outside this daemon take effect live: another mcpctl or `serve --no-daemon`
 * writing the approvals file, or a person editing it. The file is watched; after a debounce the
 * store re-reads it and every session recomputes its gating, so a server approved elsewhere
 * starts and one rejected elsewhere stops — through admission, as every start does.
 *
 * Guarantees:
 * - A burst of writes (ours are atomic renames, a few events each) yields one re-read.
 * - Re-reads never overlap; one asked for during a re-read runs after it.
 * - Our own writes poke too and change nothing: the decisions re-read are the ones we hold.
 * - close() stops the watcher and drops a pending re-read; after it resolves nothing runs.
 */
import { createDebouncer, watchPath } from '../informers/index.js';

export interface ApprovalsWatchOptions {
  /** The approvals file (it need not exist yet). */
  readonly file: string;
  readonly debounceMs: number;
  /** Re-reads the decisions (ApprovalStore.reload: never rejects). */
  readonly reload: () => Promise<void>;
  /** Called after each re-read: the sessions recompute their gating. */
  readonly reloaded: () => void;
}

export interface ApprovalsWatch {
  close(): Promise<void>;
}

/** Starts watching; resolves once the watcher is in place (a write after that is seen). */
export async function watchApprovals(options: ApprovalsWatchOptions): Promise<ApprovalsWatch> {
  let closed = false;
  let chain: Promise<void> = Promise.resolve();
  const debouncer = createDebouncer(options.debounceMs, () => {
    chain = chain.then(async () => {
      if (closed) return;
      await options.reload();
      if (closed) return;
      try {
        options.reloaded();
      } catch (err) {
        // One failing session must not stop later re-reads.
        process.emitWarning(`mcpctl approvals watch: ${String(err)}`);
      }
    });
  });
  const watcher = watchPath(options.file, () => {
    if (!closed) debouncer.schedule();
  });
  await watcher.revalidate();
  return {
    async close() {
      closed = true;
      debouncer.cancel();
      await watcher.close();
      await chain;
    },
  };
}
