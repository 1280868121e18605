import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineTail } from '../proc/index.js';
import type { ServedLease } from '../reconcilers/server-record.js';
import { StderrFollower, stderrSnapshot } from './stderr-log.js';

/** A lease over a LineTail, as the pool's are. */
function leaseOf(tail: LineTail, pid: number): ServedLease {
  return {
    key: `k${pid}`,
    connectionId: `c${pid}`,
    pid,
    stderrTail: () => tail.lines(),
    stderrSince: (seq) => tail.since(seq),
  };
}

interface FakeRecord {
  live: { lease: ServedLease } | undefined;
  lastStderr: readonly string[];
  everConnected: boolean;
  scrub: (s: string) => string;
}

function recordOf(): FakeRecord {
  return {
    live: undefined,
    lastStderr: [],
    everConnected: false,
    scrub: (s) => s.replaceAll('SECRET', '<redacted>'),
  };
}

// The follower reads only these fields of a record.
const asRecord = (r: FakeRecord) => r as unknown as Parameters<typeof stderrSnapshot>[0];

test('a follower hands on each line once, scrubbed, across a restart', { timeout: 1000 }, () => {
  const rec = recordOf();
  const first = new LineTail(5);
  rec.live = { lease: leaseOf(first, 1) };
  first.push('a\nSECRET b\npart');
  const f = new StderrFollower(() => asRecord(rec));
  assert.deepEqual(f.start(), ['a', '<redacted> b']);
  assert.deepEqual(f.poll(), { lines: [], skipped: 0 });
  first.push('ial\nc\n');
  assert.deepEqual(f.poll(), { lines: ['partial', 'c'], skipped: 0 });
  // The process dies with a last line; its loss copies its tail onto the record.
  first.push('dying\n');
  rec.live = undefined;
  rec.lastStderr = first.lines();
  rec.everConnected = true;
  assert.deepEqual(f.poll(), { lines: ['dying'], skipped: 0 });
  assert.deepEqual(f.poll(), { lines: [], skipped: 0 }, 'the copied tail is not shown again');
  // A start that fails before a connection: its lines are only on the record.
  rec.lastStderr = ['cannot bind'];
  assert.deepEqual(f.poll(), { lines: ['cannot bind'], skipped: 0 });
  const second = new LineTail(5);
  second.push('hello again\n');
  rec.live = { lease: leaseOf(second, 2) };
  assert.deepEqual(f.poll(), { lines: ['hello again'], skipped: 0, restarted: 2 });
});

test('a flood past the kept tail is counted, not kept', { timeout: 1000 }, () => {
  const rec = recordOf();
  const tail = new LineTail(3);
  rec.live = { lease: leaseOf(tail, 1) };
  const f = new StderrFollower(() => asRecord(rec));
  f.start();
  for (let i = 1; i <= 10; i += 1) tail.push(`line ${i}\n`);
  assert.deepEqual(f.poll(), { lines: ['line 8', 'line 9', 'line 10'], skipped: 7 });
});

test('snapshot: never ran, ran and gone, remote', { timeout: 1000 }, () => {
  assert.deepEqual(stderrSnapshot(undefined), {
    lines: [],
    running: false,
    ran: false,
    remote: false,
  });
  const rec = recordOf();
  assert.equal(stderrSnapshot(asRecord(rec)).ran, false);
  rec.lastStderr = ['gone'];
  assert.deepEqual(stderrSnapshot(asRecord(rec)), {
    lines: ['gone'],
    running: false,
    ran: true,
    remote: false,
  });
  rec.live = {
    lease: { key: 'k', connectionId: 'c', pid: undefined, stderrTail: () => [] },
  };
  assert.equal(stderrSnapshot(asRecord(rec)).remote, true);
});
