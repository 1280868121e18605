/** The work queue, rate limiters, reconcile contract and workers (client-go semantics). */
export { WorkQueue, type WorkKey } from './queue.js';
export {
  DelayingQueue,
  systemClock,
  type Clock,
  type DelayingQueueOptions,
} from './delaying-queue.js';
export {
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_MAX_DELAY_MS,
  ExponentialBackoffRateLimiter,
  type ExponentialBackoffOptions,
  type RateLimiter,
} from './rate-limiters.js';
export { RateLimitingQueue, type RateLimitingQueueOptions } from './rate-limiting-queue.js';
export type { Reconciler, Request, Result } from '../reconcilers/reconcile.js';
export {
  DEFAULT_CONCURRENCY,
  Workers,
  type ReconcileFailure,
  type WorkersOptions,
} from './workers.js';
