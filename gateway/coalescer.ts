/**
 * Runs an action at most once per interval however often it is poked: the first poke runs it
 * at once, pokes within the interval run it once at the interval's end.
 */
export class Coalescer {
  #last = -Infinity;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly intervalMs: number,
    private readonly action: () => void,
  ) {}

  poke(): void {
    if (this.#closed || this.#timer !== undefined) return;
    const wait = this.#last + this.intervalMs - Date.now();
    if (wait <= 0) this.#run();
    else this.#timer = setTimeout(() => this.#run(), wait);
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #run(): void {
    this.#timer = undefined;
    this.#last = Date.now();
    this.action();
  }
}
