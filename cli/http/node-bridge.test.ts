import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { sendResponse } from './node-bridge.js';
import { UnreadLedger, type UnreadDrop } from './unread.js';

const ledger = (drops: UnreadDrop[] = []) =>
  new UnreadLedger({ perStream: 10_000, perSession: 100_000, total: 100_000 }, (d) =>
    drops.push(d),
  );

/** A response whose client reads nothing: every byte written stays unread. */
class UnreadResponse extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  ended = false;
  status = 0;
  writeHead(status: number): this {
    this.status = status;
    return this;
  }
  flushHeaders(): void {}
  cork(): void {}
  uncork(): void {}
  write(chunk: string | Uint8Array): boolean {
    this.writableLength += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return false;
  }
  destroy(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }
  end(): this {
    this.ended = true;
    return this;
  }
}

describe('http node bridge', () => {
  it('a client that never reads holds at most the limit plus one event, then the stream is dropped', async () => {
    const res = new UnreadResponse();
    let cancelled = false;
    let enqueued = 0;
    const event = new Uint8Array(1000);
    // An endless SSE body: the transport would keep sending events.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        enqueued += 1;
        controller.enqueue(event);
      },
      cancel() {
        cancelled = true;
      },
    });
    const drops: UnreadDrop[] = [];
    const unread = ledger(drops);
    let ended = 0;
    await sendResponse(
      res as unknown as ServerResponse,
      new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
      { wrote: () => unread.wrote(res, 's'), onEnd: () => (ended += 1) },
    );
    assert.equal(res.status, 200);
    assert.ok(
      res.writableLength <= 10_000 + event.length,
      `${res.writableLength} unread bytes held`,
    );
    assert.ok(enqueued <= 13, `${enqueued} events taken from the transport`);
    assert.deepEqual(
      drops.map((d) => d.scope),
      ['stream'],
    );
    assert.equal(unread.bytes, 0, 'a dropped stream is counted no more');
    assert.equal(res.destroyed, true, 'the stream is dropped');
    assert.equal(cancelled, true, 'the transport is told the stream is gone');
    assert.equal(ended, 1);
  });

  it('a client that leaves cancels the body at once', async () => {
    const res = new UnreadResponse();
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      cancel() {
        cancelled = true;
      },
    });
    const unread = ledger();
    const sent = sendResponse(res as unknown as ServerResponse, new Response(body), {
      wrote: () => unread.wrote(res, 's'),
    });
    res.destroy();
    await sent;
    assert.equal(cancelled, true);
  });
});
