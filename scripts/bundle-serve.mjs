// `npm run build`'s second step: `mcpctl serve`, the pipe every agent keeps open for its whole
// session, as one file (dist/cli/serve-bundle.js, commander inside), so its process loads one
// module instead of fifty (issue #37: an idle serve's RSS; measured in `npm run bench`).
//
// - The entry is the built serve-program.js; what serve only loads when it runs the controller
//   or the daemon itself (`--no-daemon`, starting a daemon) stays a separate module, imported
//   from the bundle by its path in dist, so the bundle holds only the pipe.
// - Every module's `import.meta.url` is rewritten to that module's own built file, so what a
//   module finds relative to itself (main.js to start a daemon with, package.json, yaml
//   through createRequire) is what it finds unbundled.
// - Fails the build when an import left out of the bundle does not name a built file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const entry = path.join(dist, 'cli', 'serve-program.js');
const outfile = path.join(dist, 'cli', 'serve-bundle.js');

/** Modules serve imports only on a path that is no pipe: kept apart, loaded when needed. */
const LAZY = /\/(in-process|daemon-main|lsp-questions)\.js$/;

const apart = [];
const result = await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  minify: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  // commander is CommonJS; inside an ES module bundle its `require`s need one.
  banner: {
    js: "import { createRequire as __mcpctlRequire } from 'node:module'; const require = __mcpctlRequire(import.meta.url);",
  },
  plugins: [
    {
      name: 'as-if-unbundled',
      setup(b) {
        b.onLoad({ filter: /\.js$/ }, (args) => {
          if (!args.path.startsWith(`${dist}${path.sep}`)) return undefined;
          const own = path.relative(path.dirname(outfile), args.path).split(path.sep).join('/');
          const url = `new URL(${JSON.stringify(own)}, import.meta.url).href`;
          const contents = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', url);
          return { contents, loader: 'js' };
        });
        b.onResolve({ filter: LAZY }, (args) => {
          const target = path.resolve(args.resolveDir, args.path);
          apart.push(target);
          const relative = path.relative(path.dirname(outfile), target).split(path.sep).join('/');
          return { path: relative.startsWith('.') ? relative : `./${relative}`, external: true };
        });
      },
    },
  ],
});
if (result.errors.length > 0) process.exit(1);
const missing = apart.filter((file) => !existsSync(file));
if (missing.length > 0) {
  console.error(`bundle-serve: imports left apart name no built file: ${missing.join(', ')}`);
  process.exit(1);
}
