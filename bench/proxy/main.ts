/**
 * `npm run bench:proxy`: only the proxy figure of `npm run bench` (figure.ts), for iterating
 * on the gateway without the other figures' 90 seconds, as section-main.ts runs any one
 * section: key "proxy" of $BENCH_OUT or bench/results.json.
 */
import { runSection } from '../section-main.js';
import { PROXY_DIR_PREFIX, proxyFigure } from './figure.js';
import { proxyLines } from './report.js';

runSection({
  key: 'proxy',
  processPrefix: PROXY_DIR_PREFIX,
  async run(log) {
    log('proxy: direct, mcpctl serve, mcp-hub, one after another…');
    const { figure, detail } = await proxyFigure(log);
    const m = figure.machine;
    return {
      figure,
      lines: [
        `mcpctl proxy bench — ${figure.date}`,
        `${m.cpus} × ${m.model}, ${m.memoryGb} GiB, ${m.platform}, node ${m.node}, load ${m.loadAverage} at start`,
        '',
        ...proxyLines(figure, detail),
      ],
    };
  },
});
