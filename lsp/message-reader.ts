/**
 * Reads a language server's stdout: LSP base-protocol frames (`Content-Length: N\r\n\r\n` then N
 * bytes of JSON), within bounds, whatever the server writes.
 *
 * Why our own reader: vscode-jsonrpc's stream reader holds a whole message in memory however
 * large its `Content-Length` says it is, and one malformed header ends its parsing; a server
 * that logs to stdout by mistake, or answers a workspace-wide request with hundreds of MB, must
 * cost the daemon a bounded amount and break nothing else.
 *
 * Guarantees:
 * - Bytes that are not a frame (a server's stray `console.log`) are skipped up to the next
 *   `Content-Length:`/`Content-Type:` header, and noted once per run of them; a frame whose
 *   header or body is malformed is dropped. Neither ends the connection; each is reported through `onNote` (at most
 *   MAX_NOTES times, then once that further ones are not reported).
 * - Memory: a header is looked for in at most MAX_HEADER_BYTES; a body over `maxMessageBytes`
 *   is never held — it is dropped as it streams, and only its first PROBE_BYTES are looked at.
 * - An oversized answer fails exactly its request: when its top-level `id` comes before
 *   `result`/`error` (as every JSON-RPC library writes it), an error answer for that id
 *   (LIMIT_EXCEEDED_CODE, naming the limit) is delivered in its place. An oversized request or
 *   notification from the server is dropped and noted.
 * - Frames are delivered in order; a frame split over any number of chunks is reassembled.
 */
import type { Readable } from 'node:stream';
import {
  AbstractMessageReader,
  type DataCallback,
  type Disposable,
  type Message,
} from 'vscode-languageserver-protocol/node';
import { LIMIT_EXCEEDED_CODE, sizeText } from '../api/index.js';

/** Longest header block looked at before the bytes are taken for garbage. */
export const MAX_HEADER_BYTES = 8192;
/** How much of an oversized body is looked at to find its id. */
export const PROBE_BYTES = 512;
/** Notes about bad frames per connection before they are no longer reported one by one. */
export const MAX_NOTES = 20;

const HEADER_NAME = /content-(?:length|type)[ \t]*:/i;
/** A header name split over two chunks is at most this long. */
const HEADER_NAME_MAX = 'content-length  :'.length;
/** How much of the garbage a note shows, and after how many bytes of it a note is made. */
const SAMPLE_CHARS = 200;
const GARBAGE_NOTE_BYTES = 64 * 1024;

export interface BoundedReaderOptions {
  /** The server's name, for notes and error answers. */
  readonly name: string;
  /** Largest body taken as a message. */
  readonly maxMessageBytes: number;
  /** What was dropped, and why. */
  readonly onNote: (note: string) => void;
}

type State =
  | { readonly kind: 'header' }
  | { readonly kind: 'body'; readonly length: number }
  | { readonly kind: 'skip'; readonly length: number; left: number; probe: Buffer };

/** Bytes received and not yet consumed, kept as chunks (no copying of large bodies). */
class ByteQueue {
  #chunks: Buffer[] = [];
  size = 0;

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.size += chunk.length;
  }

  /** The first `n` bytes (fewer when fewer are here), left in the queue. */
  peek(n: number): Buffer {
    const parts: Buffer[] = [];
    let got = 0;
    for (const chunk of this.#chunks) {
      if (got >= n) break;
      const part = chunk.subarray(0, n - got);
      parts.push(part);
      got += part.length;
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }

  /** Removes and returns the first `n` bytes (n <= size). */
  take(n: number): Buffer {
    const out = this.peek(n);
    this.drop(n);
    return Buffer.from(out);
  }

  drop(n: number): void {
    let left = Math.min(n, this.size);
    this.size -= left;
    while (left > 0) {
      const first = this.#chunks[0];
      if (first.length <= left) {
        this.#chunks.shift();
        left -= first.length;
      } else {
        this.#chunks[0] = first.subarray(left);
        left = 0;
      }
    }
  }
}

export class BoundedMessageReader extends AbstractMessageReader {
  readonly #readable: Readable;
  readonly #options: BoundedReaderOptions;
  readonly #queue = new ByteQueue();
  #state: State = { kind: 'header' };
  #callback: DataCallback | undefined;
  #notes = 0;
  #pending = { bytes: 0, sample: '' };

  constructor(readable: Readable, options: BoundedReaderOptions) {
    super();
    this.#readable = readable;
    this.#options = options;
  }

  listen(callback: DataCallback): Disposable {
    this.#callback = callback;
    const onData = (chunk: Buffer | string): void => {
      this.#queue.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      this.#drain();
    };
    const onError = (err: Error): void => this.fireError(err);
    const onClose = (): void => this.fireClose();
    this.#readable.on('data', onData);
    this.#readable.on('error', onError);
    this.#readable.on('close', onClose);
    return {
      dispose: () => {
        this.#callback = undefined;
        this.#readable.off('data', onData);
        this.#readable.off('error', onError);
        this.#readable.off('close', onClose);
      },
    };
  }

  #note(note: string): void {
    this.#notes += 1;
    if (this.#notes <= MAX_NOTES) this.#options.onNote(note);
    if (this.#notes === MAX_NOTES)
      this.#options.onNote(`more notes about the output of "${this.#options.name}" are not shown`);
  }

  #drain(): void {
    const q = this.#queue;
    for (;;) {
      const state = this.#state;
      if (state.kind === 'skip') {
        const n = Math.min(q.size, state.left);
        if (n === 0) return;
        if (state.probe.length < PROBE_BYTES)
          state.probe = Buffer.concat([state.probe, q.peek(Math.min(n, PROBE_BYTES))]);
        q.drop(n);
        state.left -= n;
        if (state.left > 0) return;
        this.#state = { kind: 'header' };
        this.#oversized(state.length, state.probe);
        continue;
      }
      if (state.kind === 'body') {
        if (q.size < state.length) return;
        const body = q.take(state.length);
        this.#state = { kind: 'header' };
        this.#deliver(body);
        continue;
      }
      if (!this.#header()) return;
    }
  }

  /** Consumes one header block (or garbage before one); false when more bytes are needed. */
  #header(): boolean {
    const q = this.#queue;
    const head = q.peek(MAX_HEADER_BYTES).toString('latin1');
    const start = head.search(HEADER_NAME);
    if (start < 0) {
      // No header here: all but a possible split header name is garbage.
      const garbage = head.length - HEADER_NAME_MAX;
      if (garbage <= 0) return false;
      this.#garbage(head.slice(0, garbage));
      q.drop(garbage);
      return q.size > 0 && q.size > HEADER_NAME_MAX;
    }
    if (start > 0) {
      this.#garbage(head.slice(0, start));
      q.drop(start);
    }
    this.#flushGarbage();
    if (start > 0) return true;
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) {
      if (head.length < MAX_HEADER_BYTES) return false;
      // A header that never ends: skip its name and look for the next one.
      this.#note(`"${this.#options.name}" wrote a header longer than ${MAX_HEADER_BYTES} bytes`);
      q.drop(head.match(HEADER_NAME)![0].length);
      return true;
    }
    q.drop(end + 4);
    const length = contentLength(head.slice(0, end));
    if (length === undefined) {
      this.#note(`"${this.#options.name}" wrote a header without a valid Content-Length`);
      return true;
    }
    this.#state =
      length > this.#options.maxMessageBytes
        ? { kind: 'skip', length, left: length, probe: Buffer.alloc(0) }
        : { kind: 'body', length };
    return true;
  }

  /** Garbage is gathered until the next header (or GARBAGE_NOTE_BYTES), then noted once. */
  #garbage(text: string): void {
    this.#pending.bytes += text.length;
    if (this.#pending.sample.length < SAMPLE_CHARS)
      this.#pending.sample += text.slice(0, SAMPLE_CHARS - this.#pending.sample.length);
    if (this.#pending.bytes >= GARBAGE_NOTE_BYTES) this.#flushGarbage();
  }

  #flushGarbage(): void {
    const { bytes, sample } = this.#pending;
    if (bytes === 0) return;
    this.#pending = { bytes: 0, sample: '' };
    const shown = sample.replace(/[\x00-\x1f\x7f]/g, ' ').trim();
    this.#note(`"${this.#options.name}" wrote ${bytes} bytes that are not LSP: ${shown}`);
  }

  #deliver(body: Buffer): void {
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      this.#note(`"${this.#options.name}" sent a message that is not JSON (${body.length} bytes)`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.#note(`"${this.#options.name}" sent JSON that is not a JSON-RPC message`);
      return;
    }
    this.#callback?.(value as Message);
  }

  #oversized(length: number, probe: Buffer): void {
    const { name, maxMessageBytes } = this.#options;
    const seen = probeMessage(probe.toString('utf8'));
    const size = `${sizeText(length)}, over the ${sizeText(maxMessageBytes)} message limit`;
    if (seen.kind === 'response') {
      this.#note(`the answer of "${name}" to request ${String(seen.id)} was dropped (${size})`);
      this.#callback?.({
        jsonrpc: '2.0',
        id: seen.id,
        error: {
          code: LIMIT_EXCEEDED_CODE,
          message: `the answer of language server "${name}" exceeded the ${sizeText(maxMessageBytes)} message limit (it was ${sizeText(length)}); ask about less (a narrower query, one file)`,
        },
      } as Message);
      return;
    }
    this.#note(`a message of "${name}" was dropped (${size})`);
  }
}

/**
 * The Content-Length of a header block; undefined when there is no valid one. The last valid
 * one counts, so a stray line before a real header ("Content-Length: oops\n") loses nothing.
 */
function contentLength(block: string): number | undefined {
  let length: number | undefined;
  for (const line of block.split(/\r\n|\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
    const value = line.slice(colon + 1).trim();
    if (/^\d{1,15}$/.test(value)) length = Number(value);
  }
  return length;
}

export type Probed =
  { readonly kind: 'response'; readonly id: number | string } | { readonly kind: 'other' };

/**
 * What the start of a JSON-RPC message says it is: a response when its top-level `id` comes
 * before `result` or `error`. Only `jsonrpc` and `id` values are read; scanning stops at the
 * first other key, so a nested `"id"` can never be taken for the message's.
 */
export function probeMessage(prefix: string): Probed {
  let i = 0;
  const ws = (): void => {
    while (i < prefix.length && ' \t\r\n'.includes(prefix[i])) i += 1;
  };
  const str = (): string | undefined => {
    if (prefix[i] !== '"') return undefined;
    let out = '';
    for (i += 1; i < prefix.length; i += 1) {
      const c = prefix[i];
      if (c === '"') {
        i += 1;
        return out;
      }
      if (c === '\\') return undefined; // keys and ids we read have no escapes
      out += c;
    }
    return undefined;
  };
  ws();
  if (prefix[i] !== '{') return { kind: 'other' };
  i += 1;
  let id: number | string | undefined;
  for (;;) {
    ws();
    const key = str();
    if (key === undefined) return { kind: 'other' };
    ws();
    if (prefix[i] !== ':') return { kind: 'other' };
    i += 1;
    ws();
    if (key === 'result' || key === 'error')
      return id === undefined ? { kind: 'other' } : { kind: 'response', id };
    if (key === 'id') {
      const number = /^-?\d+/.exec(prefix.slice(i));
      if (number) {
        id = Number(number[0]);
        i += number[0].length;
      } else {
        const s = str();
        if (s === undefined) return { kind: 'other' };
        id = s;
      }
    } else if (key === 'jsonrpc') {
      if (str() === undefined) return { kind: 'other' };
    } else {
      return { kind: 'other' };
    }
    ws();
    if (prefix[i] !== ',') return { kind: 'other' };
    i += 1;
  }
}
