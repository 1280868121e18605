/**
 * How a stdio server's stdout is read (stdio-transport.ts starts and ends the process): lines
 * framed, read within the connection's budgets, parsed and checked, and handed to the
 * transport's `onmessage`, or noted and dropped.
 *
 * Guarantees:
 * - A stdout line that is not JSON-RPC does not end the connection (servers that log to
 *   stdout by mistake keep working); it costs a counter, and a few per interval are noted in
 *   the stderr tail (see traffic.ts). A line that does not start with `{` is not parsed.
 * - Reading stays within the connection's line budget (`traffic`): past it, reading pauses
 *   until the budget refills, so the server's writes block and a flood costs the daemon a
 *   bounded amount of work; lines are never lost or reordered by the pause.
 * - Notifications and requests from the server past the message budget are dropped before
 *   they are validated (answers to our requests always pass).
 * - A line over the message limit (`maxMessageBytes`, 16 MiB: api/limits.ts) never ends the
 *   connection and is never held whole: it is dropped as it streams, and what it was is learnt
 *   from its top-level keys (message-probe.ts). An answer fails exactly its request: an error
 *   answer for its id (LIMIT_EXCEEDED_CODE, "answer of NAME exceeded the 16 MiB message
 *   limit") is delivered in its place; a request from the server is answered with an error; a
 *   notification, or a line whose id cannot be told, is dropped. Each is noted in the stderr
 *   tail and reported once to the traffic guard's `onOversized` listeners; the bytes dropped
 *   spend the guard's dropped-bytes budget, past which stdout is read later, so a stream of
 *   such lines (or one endless line) costs a bounded amount of work.
 * - After `discard()` (closing) nothing more is parsed or delivered, and a paused stream
 *   flows again so it can reach its end.
 */
import type { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LIMIT_EXCEEDED_CODE, sizeText } from '../api/index.js';
import { messageOf } from './errors.js';
import { asJsonRpcMessage } from './jsonrpc-shape.js';
import { LineQueue, type DroppedLine } from './line-queue.js';
import type { LineTail } from '../proc/index.js';
import type { TrafficGuard } from './traffic.js';

export interface StdoutReaderOptions {
  /** Where messages go (`onmessage`) and an error answer to an oversized request (`send`). */
  readonly transport: Pick<Transport, 'onmessage' | 'send'>;
  /** The connection's budgets. */
  readonly traffic: TrafficGuard;
  /** The stderr tail, where notes about stdout go. */
  readonly stderr: LineTail;
  /** The server's name in what we say about its messages. */
  readonly name: string;
  /** Largest line taken as a message. */
  readonly maxMessageBytes: number;
}

export class StdoutReader {
  readonly #transport: Pick<Transport, 'onmessage' | 'send'>;
  readonly #traffic: TrafficGuard;
  readonly #stderr: LineTail;
  readonly #name: string;
  readonly #framer: LineQueue;
  #stdout: Readable | undefined;
  /** Set while reading is paused for the line budget. */
  #resumeTimer: NodeJS.Timeout | undefined;
  /** Closing: stdout is drained unread (nobody is listening any more). */
  #discard = false;

  constructor(options: StdoutReaderOptions) {
    this.#transport = options.transport;
    this.#traffic = options.traffic;
    this.#stderr = options.stderr;
    this.#name = options.name;
    this.#framer = new LineQueue(options.maxMessageBytes);
  }

  /** Reads `stdout` from now on. */
  read(stdout: Readable): void {
    this.#stdout = stdout;
    stdout.on('data', (chunk: Buffer) => this.#onChunk(chunk));
  }

  /** Closing: what is left is read without parsing it (a paused stream never reaches its end). */
  discard(): void {
    this.#discard = true;
    if (this.#resumeTimer !== undefined) clearTimeout(this.#resumeTimer);
    this.#resumeTimer = undefined;
    this.#stdout?.resume();
  }

  /** Closed: the part of a line still held is let go. */
  clear(): void {
    this.#framer.clear();
  }

  #onChunk(chunk: Buffer): void {
    if (this.#discard) return;
    const dropped = this.#framer.append(chunk);
    // Bytes read only to be dropped cost their own budget: an endless line is read slowly.
    const wait = dropped > 0 ? this.#traffic.dropBytes(dropped) : 0;
    if (wait > 0 && this.#resumeTimer === undefined) this.#pause(wait, 'oversized');
    else this.#readLines();
  }

  /** Handles whole lines while the line budget lasts; past it, pauses stdout and comes back. */
  #readLines(): void {
    while (this.#resumeTimer === undefined && !this.#discard && this.#framer.hasLine()) {
      const wait = this.#traffic.takeLine();
      if (wait > 0) {
        this.#pause(wait, 'lines');
        return;
      }
      const line = this.#framer.next();
      if (typeof line === 'string') this.#onLine(line);
      else if (line !== undefined) this.#onDropped(line);
    }
  }

  /** Stops reading stdout for `ms` (the server's writes block meanwhile), then reads on. */
  #pause(ms: number, budget: 'lines' | 'oversized'): void {
    const stdout = this.#stdout;
    stdout?.pause();
    this.#traffic.throttled(ms, budget);
    this.#resumeTimer = setTimeout(() => {
      this.#resumeTimer = undefined;
      this.#readLines();
      if (this.#resumeTimer === undefined && !this.#discard) stdout?.resume();
    }, ms);
  }

  /** A line over the message limit, already dropped: fail what it answers, say so. */
  #onDropped(line: DroppedLine): void {
    const limitBytes = this.#framer.maxBytes;
    const limit = sizeText(limitBytes);
    const size = sizeText(line.bytes);
    const method = line.method === undefined ? '' : ` ${JSON.stringify(line.method)}`;
    let what: string;
    if (line.kind === 'answer' && line.id !== undefined) {
      what = `the answer to request ${JSON.stringify(line.id)}, which failed with a size error`;
      this.#transport.onmessage?.({
        jsonrpc: '2.0',
        id: line.id,
        error: {
          code: LIMIT_EXCEEDED_CODE,
          message: `answer of ${this.#name} exceeded the ${limit} message limit (${size}); mcpctl dropped it: ask for less at a time`,
          data: { limitBytes, bytes: line.bytes },
        },
      });
    } else if (line.kind === 'request' && line.id !== undefined) {
      what = `a request${method}, answered with an error`;
      // The server would otherwise wait for an answer that cannot come.
      this.#transport
        .send({
          jsonrpc: '2.0',
          id: line.id,
          error: {
            code: LIMIT_EXCEEDED_CODE,
            message: `request of ${size} exceeded mcpctl's ${limit} message limit; it was dropped`,
          },
        })
        .catch(() => undefined);
    } else if (line.kind === 'notification') {
      what = `a notification${method}, dropped`;
    } else {
      what = 'not an answer to a request of ours, dropped';
    }
    this.#stderr.note(
      `[mcpctl] dropped a stdout line of ${size}, over the ${limit} message limit: ${what}`,
    );
    this.#traffic.oversized({ kind: line.kind, bytes: line.bytes, limitBytes });
  }

  #onLine(line: string): void {
    // Cheap first: a JSON-RPC message is an object, so anything else is not parsed at all.
    if (!JSON_OBJECT_START.test(line)) {
      this.#garbage(() => quoteStart(line));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      this.#garbage(() => firstLine(err));
      return;
    }
    // Over the budget, a notification or request is dropped before the costly validation.
    if (typeof value === 'object' && value !== null && 'method' in value) {
      if (!this.#traffic.admitMessage()) return;
    }
    const message = asJsonRpcMessage(value);
    if (message === undefined) {
      this.#garbage(() => `${quoteStart(line)} is JSON but not a JSON-RPC message`);
      return;
    }
    this.#transport.onmessage?.(message);
  }

  #garbage(describe: () => string): void {
    const note = this.#traffic.garbage(describe);
    if (note !== undefined) this.#stderr.note(note);
  }
}

const JSON_OBJECT_START = /^\s*\{/;

/** The start of a line, quoted as JSON: a server's output may hold control characters. */
function quoteStart(line: string): string {
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
}

function firstLine(err: unknown): string {
  return messageOf(err).split('\n')[0]?.slice(0, 200) ?? '';
}
