import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ReplayStore, ReplayWindow } from './replay.js';

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: `event ${n}` },
});

async function replay(
  store: ReplayStore,
  after: string,
): Promise<{ stream: string; got: string[] }> {
  const got: string[] = [];
  const stream = await store.replayEventsAfter(after, {
    send: (_id, message) => {
      got.push(JSON.stringify(message));
      return Promise.resolve();
    },
  });
  return { stream, got };
}

describe('http replay window', () => {
  it('replays exactly the events of the stream after the given one, in order, no priming', async () => {
    const store = new ReplayStore(new ReplayWindow({ maxBytes: 1e6, maxEvents: 100 }), {
      maxStreams: 10,
    });
    const prime = await store.storeEvent('_GET_stream', {} as JSONRPCMessage);
    const a1 = await store.storeEvent('_GET_stream', note(1));
    await store.storeEvent('other', note(99));
    await store.storeEvent('_GET_stream', note(2));
    await store.storeEvent('_GET_stream', note(3));
    assert.equal(await store.getStreamIdForEventId(a1), '_GET_stream');
    const fromPrime = await replay(store, prime);
    assert.equal(fromPrime.stream, '_GET_stream');
    assert.deepEqual(
      fromPrime.got,
      [1, 2, 3].map((n) => JSON.stringify(note(n))),
    );
    assert.deepEqual(
      (await replay(store, a1)).got,
      [2, 3].map((n) => JSON.stringify(note(n))),
    );
  });

  it("knows only its own session's streams", async () => {
    const window = new ReplayWindow({ maxBytes: 1e6, maxEvents: 100 });
    const mine = new ReplayStore(window, { maxStreams: 10 });
    const theirs = new ReplayStore(window, { maxStreams: 10 });
    const id = await theirs.storeEvent('s', note(1));
    await theirs.storeEvent('s', note(2));
    assert.equal(await mine.getStreamIdForEventId(id), undefined);
    assert.deepEqual(await replay(mine, id), { stream: '', got: [] });
    for (const bad of ['', 'x', ':1', 's:', 's:1.5', 's:-1'])
      assert.equal(await theirs.getStreamIdForEventId(bad), undefined, bad);
  });

  it('stays within its bytes and events, oldest dropped first, the gap reported', async () => {
    const window = new ReplayWindow({ maxBytes: 400, maxEvents: 1000 });
    const gaps: number[] = [];
    const store = new ReplayStore(window, { maxStreams: 10, onGap: (_s, upTo) => gaps.push(upTo) });
    const first = await store.storeEvent('s', note(0));
    for (let n = 1; n <= 20; n += 1) await store.storeEvent('s', note(n));
    assert.ok(window.bytes <= 400, `${window.bytes} bytes kept`);
    const { got } = await replay(store, first);
    assert.ok(got.length > 0 && got.length < 20, `${got.length} kept`);
    assert.equal(got.at(-1), JSON.stringify(note(20)), 'the newest is kept');
    assert.equal(gaps.length, 1, 'the gap is reported');

    const counted = new ReplayWindow({ maxBytes: 1e9, maxEvents: 5 });
    const s2 = new ReplayStore(counted, { maxStreams: 10 });
    for (let n = 0; n < 50; n += 1) await s2.storeEvent('s', note(n));
    assert.equal(counted.events, 5);
  });

  it('forgets the oldest stream past maxStreams, and everything at close', async () => {
    const window = new ReplayWindow({ maxBytes: 1e6, maxEvents: 100 });
    const store = new ReplayStore(window, { maxStreams: 2 });
    const a = await store.storeEvent('a', note(1));
    await store.storeEvent('b', note(2));
    await store.storeEvent('c', note(3));
    assert.equal(await store.getStreamIdForEventId(a), undefined, 'a is forgotten');
    assert.equal(window.events, 2);
    store.close();
    assert.equal(window.events, 0);
    assert.equal(window.bytes, 0);
  });
});
