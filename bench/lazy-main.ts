/**
 * `npm run bench:lazy`: only the lazy figure of `npm run bench` (lazy.ts), as section-main.ts
 * runs any one section: key "lazy" of $BENCH_OUT or bench/results.json.
 */
import { lazyFigure, lazyLines } from './lazy.js';
import { runSection } from './section-main.js';

runSection({
  key: 'lazy',
  processPrefix: 'mcpctl-bench-lazy-',
  async run(log) {
    const figure = await lazyFigure(log);
    return { figure, lines: lazyLines(figure) };
  },
});
