import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settle, type SettleDeps } from './settle.js';

const QUIET = 40;
const CEILING = 300;

/**
 * A file on a virtual clock: `writes` are (time, content) pairs; '' is an emptied file and
 * 'partial' one caught mid-write. Sleeping advances the clock, so every run is exact.
 */
function world(writes: [number, string][], opts: { closeAt?: number } = {}) {
  let t = 0;
  const reads: number[] = [];
  const latest = () => {
    let index = -1;
    for (let i = 0; i < writes.length; i++) if (writes[i][0] <= t) index = i;
    return index;
  };
  const deps: SettleDeps<string> = {
    stamp: () => Promise.resolve(String(latest())),
    read: () => {
      reads.push(t);
      const content = writes[latest()]?.[1] ?? '';
      return Promise.resolve({ next: content, complete: content !== '' && content !== 'partial' });
    },
    sleep: (ms) => {
      t += ms;
      return Promise.resolve();
    },
    now: () => t,
    closed: () => opts.closeAt !== undefined && t >= opts.closeAt,
  };
  return { deps, reads, time: () => t };
}

async function run(writes: [number, string][], opts: { closeAt?: number } = {}) {
  const w = world(writes, opts);
  const done = await settle(w.deps, { quietMs: QUIET, ceilingMs: CEILING });
  return { applied: done?.next, at: w.time(), reads: w.reads };
}

describe('settle', { timeout: 10_000 }, () => {
  it('an atomic save is applied after one quiet period, read once', async () => {
    const r = await run([[0, 'v2']]);
    assert.deepEqual(r, { applied: 'v2', at: QUIET, reads: [0] });
  });

  it('saves closer together than the quiet period apply only the last one', async () => {
    const r = await run([
      [0, 'a'],
      [30, 'b'],
      [60, 'c'],
      [90, 'd'],
      [120, 'e'],
    ]);
    assert.equal(r.applied, 'e');
    assert.ok(r.at >= 120 + QUIET, `applied at ${r.at}`);
  });

  it('truncate, then write 50 ms later: the empty file is never applied', async () => {
    const r = await run([
      [0, ''],
      [50, 'full'],
    ]);
    assert.equal(r.applied, 'full');
  });

  it('a write in three chunks 20 ms apart applies the whole file', async () => {
    const r = await run([
      [0, 'partial'],
      [20, 'partial'],
      [40, 'whole'],
    ]);
    assert.equal(r.applied, 'whole');
  });

  it('an incomplete state that stays is applied after the ceiling of quiet', async () => {
    const r = await run([[0, '']]);
    assert.equal(r.applied, '');
    assert.ok(r.at >= CEILING && r.at < CEILING + QUIET, `applied at ${r.at}`);
  });

  it('a file that keeps changing is not applied until it stops', async () => {
    const writes: [number, string][] = [];
    for (let t = 0; t <= 600; t += 10) writes.push([t, `v${t}`]);
    const r = await run(writes);
    assert.equal(r.applied, 'v600');
    assert.ok(r.at >= 600 + QUIET);
  });

  it('a close ends it without applying anything', async () => {
    const r = await run([[0, '']], { closeAt: 100 });
    assert.equal(r.applied, undefined);
  });
});
