import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../testing/until.js';
import { DEFAULT_TRAFFIC_LIMITS, TrafficGuard, type TrafficLimits } from './traffic.js';

const T = { timeout: 10_000 };

function limits(over: Partial<TrafficLimits>): TrafficLimits {
  return { ...DEFAULT_TRAFFIC_LIMITS, reportIntervalMs: 100, ...over };
}

test(
  'messages past the budget are dropped, and the guard says it floods until calm',
  T,
  async () => {
    const g = new TrafficGuard(limits({ messagesPerSecond: 1, messageBurst: 3 }));
    let changes = 0;
    const notes: (string | undefined)[] = [];
    g.onChange(() => {
      changes += 1;
      notes.push(g.report()?.note);
    });
    try {
      assert.deepEqual([g.admitMessage(), g.admitMessage(), g.admitMessage()], [true, true, true]);
      assert.equal(g.report(), undefined, 'within the burst it behaves');
      for (let i = 0; i < 1000; i += 1) assert.equal(g.admitMessage(), false);
      assert.deepEqual(g.report()?.kinds, ['messages']);
      // The report is taken when it starts (the first drop), then renewed once per interval.
      assert.equal(g.report()?.note, 'flooding (just started): notifications over 1/s dropped');
      assert.equal(changes, 1, 'once when it starts, not per message');
      // It stops: one whole interval without going over clears the report.
      await until('the report to clear when calm', () => g.report() === undefined, {
        timeoutMs: 2000,
      });
      assert.deepEqual(notes, [
        'flooding (just started): notifications over 1/s dropped',
        // Renewed after an interval with the numbers so far, then cleared when calm.
        'flooding (last 0.1 s): 1000 notifications over 1/s dropped',
        undefined,
      ]);
    } finally {
      g.close();
    }
  },
);

test('stray non-JSON-RPC lines are noted but tolerated; a stream of them floods', T, () => {
  const g = new TrafficGuard(
    limits({ garbagePerInterval: 10, garbageNotesPerInterval: 2, reportIntervalMs: 60_000 }),
  );
  try {
    const notes = Array.from({ length: 10 }, (_, i) => g.garbage(() => `line ${i}`));
    assert.deepEqual(notes.slice(0, 2), [
      '[mcpctl] ignored a stdout line that is not JSON-RPC: line 0',
      '[mcpctl] ignored a stdout line that is not JSON-RPC: line 1',
    ]);
    assert.deepEqual(notes.slice(2), Array(8).fill(undefined), 'the rest are only counted');
    assert.equal(g.report(), undefined, 'ten strays are tolerated');
    g.garbage(() => 'line 10');
    assert.deepEqual(g.report()?.kinds, ['garbage']);
    assert.match(g.report()?.note ?? '', /more than 10 stdout lines that are not JSON-RPC/);
  } finally {
    g.close();
  }
});

test('re-lists past the budget wait, and that counts as flooding', T, () => {
  const g = new TrafficGuard(limits({ relistsPerSecond: 2, relistBurst: 2 }));
  try {
    assert.equal(g.takeRelist(), 0);
    assert.equal(g.takeRelist(), 0);
    const wait = g.takeRelist();
    assert.ok(wait > 0 && wait <= 500, `waits ${wait} ms`);
    assert.deepEqual(g.report()?.kinds, ['list changes']);
  } finally {
    g.close();
  }
});

test('stdout lines past the budget ask for a pause', T, () => {
  const g = new TrafficGuard(limits({ linesPerSecond: 10, lineBurst: 2 }));
  try {
    assert.equal(g.takeLine(), 0);
    assert.equal(g.takeLine(), 0);
    const wait = g.takeLine();
    assert.ok(wait > 0 && wait <= 100);
    assert.equal(g.report(), undefined, 'asking is not flooding: pausing is');
    g.throttled(wait);
    assert.deepEqual(g.report()?.kinds, ['output']);
  } finally {
    g.close();
  }
});

test('bytes of lines over the size limit spend their own budget; past it, a pause', () => {
  let t = 0;
  const g = new TrafficGuard(
    limits({ droppedBytesPerSecond: 1000, droppedBytesBurst: 5000, reportIntervalMs: 10_000 }),
    () => t,
  );
  try {
    assert.equal(g.dropBytes(4000), 0, 'within the burst');
    assert.equal(g.report(), undefined);
    const wait = g.dropBytes(3000);
    assert.equal(wait, 2001, 'the 2000 bytes over it, at 1000/s, and one more');
    g.throttled(wait, 'oversized');
    assert.deepEqual(g.report()?.kinds, ['oversized']);
    assert.equal(
      g.report()?.note,
      'flooding (just started): messages over the size limit past 1000 B/s, reading paused',
    );
    t += wait;
    assert.equal(g.dropBytes(0), 0, 'paid off');
  } finally {
    g.close();
  }
});
