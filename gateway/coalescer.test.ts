import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
      const deadline = Date.now() + 5000;
      while (runs < 2 && Date.now() < deadline) await sleep(20);
      assert.equal(runs, 2);
      c.poke();
      c.close();
      await sleep(300);
      assert.equal(runs, 2);
    },
  );
});
