/**
 * The line that says what a command waits for and for how long ("waiting for server/fs
 * Ready=True… 3s"), redrawn in place on stderr while it waits: reload, approve/reject, wait, and
 * serve starting a daemon.
 *
 * Guarantees:
 * - Only on a terminal: when the sink is not a TTY nothing at all is written (piped output and
 *   logs never hold a control sequence or a half line).
 * - The text is escaped (api/escape.ts `escapeField`: a server's name cannot drive the
 *   terminal) and cut to the terminal's width, so the redraw (`\r` + erase line) always
 *   covers the whole of the last one.
 * - Nothing shows for waits under `delayMs` (default 300 ms): a quick command does not flicker.
 * - `stop()` erases the line and clears the timer; after it nothing is written, and no timer
 *   is left (the timer is also `unref`ed, so it never holds the process up).
 */
import { escapeField } from '../api/escape.js';

/** Where the line goes: raw stderr (our own control codes pass), and whether it is a terminal. */
export interface ProgressSink {
  readonly isTTY: boolean;
  /** Terminal width; undefined: 80. */
  readonly columns?: number | undefined;
  write(raw: string): void;
}

export interface ProgressOptions {
  readonly now?: () => number;
  /** How often the seconds are redrawn. Default 1000 ms. */
  readonly intervalMs?: number;
  /** Nothing shows before this. Default 300 ms. */
  readonly delayMs?: number;
}

const ERASE = '\r\u001b[2K';

export class ProgressLine {
  readonly #sink: ProgressSink;
  readonly #now: () => number;
  readonly #intervalMs: number;
  readonly #delayMs: number;
  #what = '';
  #since = 0;
  #timer: NodeJS.Timeout | undefined;
  #shown = false;
  #stopped = false;

  constructor(sink: ProgressSink, options: ProgressOptions = {}) {
    this.#sink = sink;
    this.#now = options.now ?? Date.now;
    this.#intervalMs = options.intervalMs ?? 1000;
    this.#delayMs = options.delayMs ?? 300;
  }

  /** Starts (or restarts, with a new text and clock) the line. */
  start(what: string): void {
    if (!this.#sink.isTTY || this.#stopped) return;
    this.#what = what;
    this.#since = this.#now();
    clearTimeout(this.#timer);
    clearInterval(this.#timer);
    this.#timer = setTimeout(() => {
      this.#draw();
      this.#timer = setInterval(() => this.#draw(), this.#intervalMs);
      this.#timer.unref();
    }, this.#delayMs);
    this.#timer.unref();
  }

  /** A new text, same clock (what it waits for now: "… (now Ready=False ConnectFailed)"). */
  update(what: string): void {
    if (!this.#sink.isTTY || this.#stopped) return;
    this.#what = what;
    if (this.#shown) this.#draw();
  }

  /** Erases the line and ends the timer. Idempotent. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#shown) this.#sink.write(ERASE);
    this.#shown = false;
  }

  /** The text as drawn now: what it waits for, cut to the width, then the seconds. */
  text(): string {
    const columns = this.#sink.columns;
    // A terminal that says no width (0, as under some pseudo-terminals) is taken as 80.
    const width = Math.max(20, (columns !== undefined && columns > 0 ? columns : 80) - 1);
    const secs = `… ${Math.floor((this.#now() - this.#since) / 1000)}s`;
    const what = escapeField(this.#what);
    const room = width - secs.length;
    return `${what.length > room ? `${what.slice(0, room - 1)}~` : what}${secs}`;
  }

  #draw(): void {
    if (this.#stopped) return;
    this.#sink.write(`${ERASE}${this.text()}`);
    this.#shown = true;
  }
}

/** Runs `fn` with a progress line saying `what`; the line is gone when `fn` settles. */
export async function withProgress<T>(
  sink: ProgressSink,
  what: string,
  fn: (line: ProgressLine) => Promise<T>,
  options: ProgressOptions = {},
): Promise<T> {
  const line = new ProgressLine(sink, options);
  line.start(what);
  try {
    return await fn(line);
  } finally {
    line.stop();
  }
}

/** The process's stderr as a progress sink. */
export const stderrSink: ProgressSink = {
  get isTTY() {
    return process.stderr.isTTY === true;
  },
  get columns() {
    return process.stderr.columns;
  },
  write: (raw) => void process.stderr.write(raw),
};
