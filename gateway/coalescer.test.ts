import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { until } from '../testing/until.js';
import { Coalescer } from './coalescer.js';

const T = { timeout: 10_000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Coalescer', T, () => {
  it(
    'runs at once, then once per interval however often poked, nothing after close',
    T,
    async () => {
      let runs = 0;
      const c = new Coalescer(200, () => (runs += 1));
      c.poke();
      assert.equal(runs, 1);
      for (let i = 0; i < 100; i++) c.poke();
      assert.equal(runs, 1);
      await until('the second run', () => runs >= 2, { timeoutMs: 5000 });
      assert.equal(runs, 2);
      c.poke();
      c.close();
      await sleep(300);
      assert.equal(runs, 2);
    },
  );
});
