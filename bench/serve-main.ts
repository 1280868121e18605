/**
 * `npm run bench:serve`: only the serve figure of `npm run bench` (serve-rss.ts), as
 * section-main.ts runs any one section: key "serve" of $BENCH_OUT or bench/results.json.
 */
import { runSection } from './section-main.js';
import { serveRssFigure, serveRssLines } from './serve-rss.js';

runSection({
  key: 'serve',
  processPrefix: 'mcpctl-bench-serve-',
  async run(log) {
    const figure = await serveRssFigure(log);
    return { figure, lines: serveRssLines(figure) };
  },
});
