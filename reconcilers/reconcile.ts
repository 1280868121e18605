/**
 * The reconcile contract, after controller-runtime's `pkg/reconcile`. A leaf: reconcilers/
 * implement it and controller/ runs it (workers.ts), and neither imports the other for it.
 *
 * - A {@link Request} names what to reconcile (here a server name); it carries no event, so a
 *   reconcile is level-based: it compares desired and actual state *now* (DESIGN §2).
 * - Resolving with nothing (or `{}`) means done: the key's failure history is forgotten.
 * - Resolving with `{ requeueAfter: ms }` (ms > 0) means done for now, look again after `ms`;
 *   the failure history is forgotten too. `requeueAfter <= 0` is the same as nothing.
 * - Rejecting (throwing) means "retry with backoff": the key is re-added after its
 *   rate limiter's delay and the error is reported. A `requeueAfter` is then ignored.
 * - The work queue guarantees one reconcile per key at a time, so a reconciler needs no lock
 *   of its own for a single key.
 */

/** The key of one reconcile: a server name. */
export type Request = string;

export interface Result {
  /** Reconcile again after this many ms (only if > 0). */
  readonly requeueAfter?: number;
}

/**
 * `R` is a work-queue key: controller/queue.ts's `WorkKey`, spelled out here because this leaf
 * imports nothing of controller/ (a wider `WorkKey` would fail to compile in workers.ts).
 */
export interface Reconciler<R extends string | number = Request> {
  reconcile(req: R): Promise<Result | void>;
}
