/**
 * `npm run bench:lsp`: only the lsp figure of `npm run bench` (figure.ts), as section-main.ts
 * runs any one section: key "lsp" of $BENCH_OUT or bench/results.json.
 * `npm run bench:lsp -- diagnostics`: only its diagnostics figure (diagnostics-figure.ts), key
 * "lspDiagnostics".
 */
import { machine } from '../machine.js';
import { runSection } from '../section-main.js';
import { lspDiagnosticsFigure, lspDiagnosticsLines } from './diagnostics-figure.js';
import { lspFigure, lspLines } from './figure.js';

const m = machine();
const header = `on ${m.cpus} × ${m.model}, node ${m.node}, load ${m.loadAverage}`;

if (process.argv[2] === 'diagnostics') {
  runSection({
    key: 'lspDiagnostics',
    processPrefix: 'mcpctl-peer-lsp-',
    async run(log) {
      log(`lsp diagnostics bench ${header}`);
      const figure = await lspDiagnosticsFigure(log);
      return { figure, lines: lspDiagnosticsLines(figure) };
    },
  });
} else {
  runSection({
    key: 'lsp',
    processPrefix: 'mcpctl-peer-lsp-',
    async run(log) {
      log(`lsp bench ${header}`);
      const figure = await lspFigure(log);
      return { figure, lines: lspLines(figure) };
    },
  });
}
