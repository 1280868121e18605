/**
 * Measures tool gaps: how long any of a set of servers had no tools, and how long one given
 * server had none.
 *
 * Two ways at once. Exact: every registry change is seen as it happens, and the time between
 * "some server has no tools" and "all have tools again" is added up with performance.now().
 * Sampled, as the issue words it: a 1 ms timer looks at the registry and counts the samples
 * that found a gap. A gap that opens and closes inside one synchronous stretch is seen by
 * neither, and by no agent either: nobody can read the registry in between.
 */
import type { Registry } from '../reconcilers/registry.js';

export interface GapReading {
  /** Total ms any watched server had no tools (exact). */
  readonly watchedMs: number;
  /** Total ms the changed server had no tools (exact). */
  readonly changedMs: number;
  /** 1 ms samples that found a watched server without tools, and all samples taken. */
  readonly watchedSamples: number;
  readonly changedSamples: number;
  readonly samples: number;
}

type RegistryLike = Pick<Registry, 'get' | 'onChange'>;

export class GapMeter {
  #watchedSince: number | undefined;
  #changedSince: number | undefined;
  #watchedMs = 0;
  #changedMs = 0;
  #watchedSamples = 0;
  #changedSamples = 0;
  #samples = 0;
  #timer: NodeJS.Timeout | undefined;
  #off: (() => void) | undefined;

  constructor(
    private readonly registry: RegistryLike,
    private readonly watched: readonly string[],
    private readonly changed: string,
  ) {}

  #empty(name: string): boolean {
    return (this.registry.get(name)?.tools.length ?? 0) === 0;
  }

  #observe(): void {
    const now = performance.now();
    const watchedGap = this.watched.some((n) => this.#empty(n));
    if (watchedGap && this.#watchedSince === undefined) this.#watchedSince = now;
    if (!watchedGap && this.#watchedSince !== undefined) {
      this.#watchedMs += now - this.#watchedSince;
      this.#watchedSince = undefined;
    }
    const changedGap = this.#empty(this.changed);
    if (changedGap && this.#changedSince === undefined) this.#changedSince = now;
    if (!changedGap && this.#changedSince !== undefined) {
      this.#changedMs += now - this.#changedSince;
      this.#changedSince = undefined;
    }
  }

  start(): void {
    this.#observe();
    this.#off = this.registry.onChange(() => this.#observe());
    this.#timer = setInterval(() => {
      this.#samples += 1;
      if (this.watched.some((n) => this.#empty(n))) this.#watchedSamples += 1;
      if (this.#empty(this.changed)) this.#changedSamples += 1;
    }, 1);
  }

  stop(): GapReading {
    this.#observe();
    this.#off?.();
    if (this.#timer) clearInterval(this.#timer);
    const now = performance.now();
    const open = (since: number | undefined) => (since === undefined ? 0 : now - since);
    return {
      watchedMs: this.#watchedMs + open(this.#watchedSince),
      changedMs: this.#changedMs + open(this.#changedSince),
      watchedSamples: this.#watchedSamples,
      changedSamples: this.#changedSamples,
      samples: this.#samples,
    };
  }
}
