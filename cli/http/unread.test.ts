import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { UnreadLedger, type UnreadDrop, type UnreadLimits } from './unread.js';

/** A response whose unread bytes the test sets, as the socket would. */
class FakeResponse extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  destroy(): this {
    this.destroyed = true;
    this.emit('close');
    return this;
  }
}

function ledger(limits: Partial<UnreadLimits> = {}) {
  const drops: UnreadDrop[] = [];
  const l = new UnreadLedger({ perStream: 1000, perSession: 100, total: 1000, ...limits }, (drop) =>
    drops.push(drop),
  );
  /** A write to `res` of session `owner` that leaves `unread` bytes. */
  const write = (res: FakeResponse, owner: string, unread: number) => {
    res.writableLength = unread;
    return l.wrote(res, owner);
  };
  return { l, drops, write };
}

describe('http unread bytes', () => {
  it('counts a response while it holds unread bytes, until it is flushed or closed', () => {
    const { l, write } = ledger();
    const quick = new FakeResponse();
    assert.equal(write(quick, 's', 0), true);
    assert.equal(quick.listenerCount('close'), 0, 'a write read at once costs nothing');

    const slow = new FakeResponse();
    write(slow, 's', 40);
    assert.equal(l.bytesOf('s'), 40);
    write(slow, 's', 70);
    assert.equal(l.bytes, 70);
    slow.writableLength = 0;
    slow.emit('drain');
    assert.equal(l.bytes, 0, 'drained');
    write(slow, 's', 30);
    slow.emit('finish');
    assert.equal(l.bytesOf('s'), 0, 'flushed to the kernel: forgotten');
    assert.equal(slow.listenerCount('close'), 0);

    const gone = new FakeResponse();
    write(gone, 't', 50);
    gone.emit('close');
    assert.equal(l.bytes, 0, 'the client left: forgotten');
  });

  it('one response over its limit is dropped, and the writer told', () => {
    const { l, drops, write } = ledger({ perStream: 50, perSession: 1000 });
    const res = new FakeResponse();
    assert.equal(write(res, 's', 50), true);
    assert.equal(write(res, 's', 51), false);
    assert.equal(res.destroyed, true);
    assert.deepEqual(drops, [
      { owner: 's', scope: 'stream', bytes: 51, ownerBytes: 0, totalBytes: 0 },
    ]);
    assert.equal(write(res, 's', 60), false, 'nothing more is taken');
    assert.equal(l.bytes, 0);
  });

  it("a session over its limit loses its largest response, the others' stay", () => {
    const { l, drops, write } = ledger({ perSession: 100 });
    const [a, b, c, other] = [0, 1, 2, 3].map(() => new FakeResponse());
    assert.ok(a && b && c && other);
    write(a, 's', 50);
    write(b, 's', 30);
    write(other, 't', 90);
    assert.equal(write(c, 's', 40), true, 'the writer is not the largest');
    assert.equal(a.destroyed, true);
    assert.equal(b.destroyed || c.destroyed || other.destroyed, false);
    assert.deepEqual(drops, [
      { owner: 's', scope: 'session', bytes: 50, ownerBytes: 70, totalBytes: 160 },
    ]);
    assert.equal(l.bytesOf('s'), 70);
  });

  it('counts are read again before a drop: bytes the client took since count no more', () => {
    const { drops, write } = ledger({ perSession: 100 });
    const read = new FakeResponse();
    write(read, 's', 60);
    // The client read it all, and node said nothing (no drain below the high-water mark).
    read.writableLength = 0;
    const next = new FakeResponse();
    assert.equal(write(next, 's', 50), true);
    assert.deepEqual(drops, []);
    assert.equal(read.destroyed, false);
  });

  it("over the daemon's limit, the session holding the most pays, not the last writer", () => {
    const { l, drops, write } = ledger({ perSession: 100, total: 100 });
    const hoard = new FakeResponse();
    const [b1, b2] = [new FakeResponse(), new FakeResponse()];
    write(hoard, 'hoarder', 60);
    write(b1, 'b', 30);
    assert.equal(write(b2, 'b', 20), true);
    assert.equal(hoard.destroyed, true);
    assert.equal(b1.destroyed || b2.destroyed, false);
    assert.deepEqual(drops, [
      { owner: 'hoarder', scope: 'daemon', bytes: 60, ownerBytes: 0, totalBytes: 50 },
    ]);
    assert.equal(l.bytes, 50);
  });
});
