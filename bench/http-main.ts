/**
 * `npm run bench:http`: only the http figure of `npm run bench` (http.ts), for iterating on
 * the HTTP endpoint without the other figures, as section-main.ts runs any one section: key
 * "http" of $BENCH_OUT or bench/results.json. `PROXY_CALLS=warmup,sequential,parallel` sets
 * the load as for the proxy figure.
 */
import { httpFigure, httpLines } from './http.js';
import { machine } from './machine.js';
import { runSection } from './section-main.js';

runSection({
  key: 'http',
  processPrefix: 'mcpctl-bench-http-',
  async run(log) {
    const m = machine();
    log(`http bench on ${m.cpus} × ${m.model}, node ${m.node}, load ${m.loadAverage}`);
    const figure = await httpFigure(log);
    return { figure, lines: httpLines(figure) };
  },
});
