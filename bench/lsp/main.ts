/**
 * `npm run bench:lsp`: only the lsp figure of `npm run bench` (figure.ts), as section-main.ts
 * runs any one section: key "lsp" of $BENCH_OUT or bench/results.json.
 */
import { machine } from '../machine.js';
import { runSection } from '../section-main.js';
import { lspFigure, lspLines } from './figure.js';

runSection({
  key: 'lsp',
  processPrefix: 'mcpctl-peer-lsp-',
  async run(log) {
    const m = machine();
    log(`lsp bench on ${m.cpus} × ${m.model}, node ${m.node}, load ${m.loadAverage}`);
    const figure = await lspFigure(log);
    return { figure, lines: lspLines(figure) };
  },
});
