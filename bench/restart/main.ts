/**
 * `npm run bench:restart`: only the restart figure of `npm run bench` (figure.ts), as
 * section-main.ts runs any one section: key "restart" of $BENCH_OUT or bench/results.json.
 */
import { machine } from '../machine.js';
import { runSection } from '../section-main.js';
import { restartFigure, restartLines } from './figure.js';

runSection({
  key: 'restart',
  processPrefix: 'mcpctl-peer-restart-',
  async run(log) {
    const m = machine();
    log(`restart bench on ${m.cpus} × ${m.model}, node ${m.node}, load ${m.loadAverage}`);
    const { figure, detail } = await restartFigure(log);
    return { figure, lines: restartLines(figure, detail) };
  },
});
