/**
 * The work queue: the only serialiser between "something changed" and "reconcile it" (DESIGN §2).
 * Modelled on client-go's `workqueue` (a FIFO plus a dirty set and a processing set).
 *
 * Guarantees:
 * - `add(k)` of a key already queued does nothing: the key keeps its place in line.
 * - `add(k)` of a key being processed marks it dirty; `done(k)` then queues it once more at
 *   the back, however many times it was added meanwhile (coalescing).
 * - A key is never handed out by `get()` while it is being processed, so one key is never
 *   worked on by two workers at once.
 * - Keys are handed out in the order they were first queued (FIFO across keys); waiting
 *   `get()` callers are served in the order they called.
 * - After `shutdown()`: `add()` is ignored, keys still queued are dropped, every pending and
 *   future `get()` resolves `undefined`, and `done()` no longer re-queues dirty keys. Unlike
 *   client-go, queued keys are not handed out after shutdown: the session releases every lease
 *   when it closes, so starting new reconciles then would only connect servers to drop them.
 * - `shutdownWithDrain()` is `shutdown()` plus a promise that resolves once every key handed
 *   out has been `done()`.
 * - `whenIdle()` resolves once nothing is queued and nothing is being processed.
 *
 * Keys compare by value (`Set` semantics), so they are limited to primitives.
 */

/** Keys are primitives so that equal names dedupe; objects would compare by identity. */
export type WorkKey = string | number;

export class WorkQueue<K extends WorkKey> {
  /** The order keys are handed out in. Every key here is in `dirty` and not in `processing`. */
  private readonly queue: K[] = [];
  /** Keys that need processing: queued, or added again while being processed. */
  private readonly dirty = new Set<K>();
  /** Keys handed out by `get()` and not yet `done()`. */
  private readonly processing = new Set<K>();
  private readonly getters: ((key: K | undefined) => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private shuttingDown = false;

  /** Marks `key` as needing processing. Ignored after shutdown. */
  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    // A key being processed waits in `dirty` until done(), so no second worker gets it.
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.dispatch();
  }

  /** Number of keys waiting to be handed out (not counting keys being processed). */
  len(): number {
    return this.queue.length;
  }

  /** Number of keys handed out and not yet `done()`. */
  processingLen(): number {
    return this.processing.size;
  }

  /**
   * Resolves with the next key, waiting for one if the queue is empty, or `undefined` once the
   * queue is shutting down. The caller must call `done(key)` when finished with it.
   */
  get(): Promise<K | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.take(key));
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /**
   * Marks `key` as finished. If it was added while being processed, it is queued again.
   * `done()` of a key that is not being processed is ignored (it cannot double-queue a key).
   */
  done(key: K): void {
    if (!this.processing.delete(key)) return;
    if (this.dirty.has(key) && !this.shuttingDown) {
      this.queue.push(key);
      this.dispatch();
    }
    this.checkIdle();
  }

  /** Stops accepting keys and drops queued ones; keys being processed may still call `done()`. */
  shutdown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.queue.length = 0;
    this.dirty.clear();
    for (const resolve of this.getters.splice(0)) resolve(undefined);
    this.checkIdle();
  }

  /** `shutdown()`, then resolves once every key handed out has been `done()`. */
  shutdownWithDrain(): Promise<void> {
    this.shutdown();
    return this.whenIdle();
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Resolves once nothing is queued and nothing is being processed (at once if so now). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.processing.size === 0;
  }

  private take(key: K): K {
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  /** Hands queued keys to waiting `get()` callers, oldest caller first. */
  private dispatch(): void {
    while (this.getters.length > 0 && this.queue.length > 0) {
      const resolve = this.getters.shift();
      const key = this.queue.shift();
      if (resolve !== undefined && key !== undefined) resolve(this.take(key));
    }
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
