#!/usr/bin/env node
/**
 * The `mcpctl` executable. Commands finish by letting the event loop empty (so piped output
 * is flushed); the daemon exits explicitly once it has stopped, since watchers of libraries
 * may keep handles it no longer needs.
 */
import { commandWordOf } from './command-word.js';
import type * as ServeProgramModule from './serve-program.js';

type ServeProgram = typeof ServeProgramModule;

/**
 * `serve` is a pipe an agent keeps open for its whole session: it loads only its own command,
 * bundled into one module by `npm run build` (scripts/bundle-serve.mjs; its types:
 * serve-bundle.d.ts). A build by `tsc` alone has none: the same program from its modules then.
 */
async function serveProgram(): Promise<ServeProgram> {
  try {
    return await import('./serve-bundle.js');
  } catch (err) {
    const bundle = new URL('./serve-bundle.js', import.meta.url).pathname;
    const missing =
      (err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      String((err as Error).message).includes(bundle);
    if (!missing) throw err;
    return import('./serve-program.js');
  }
}

const { run } =
  commandWordOf(process.argv.slice(2)) === 'serve'
    ? await serveProgram()
    : await import('./program.js');

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // `mcpctl get servers | head`: the reader left; that is not our failure.
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const result = await run(process.argv);
if (result.daemon) process.exit(result.code);
process.exitCode = result.code;
