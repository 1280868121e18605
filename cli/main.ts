#!/usr/bin/env node
/**
 * The `mcpctl` executable. Commands finish by letting the event loop empty (so piped output
 * is flushed); the daemon exits explicitly once it has stopped, since watchers of libraries
 * may keep handles it no longer needs.
 */
import { run } from './program.js';

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // `mcpctl get servers | head`: the reader left; that is not our failure.
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const result = await run(process.argv);
if (result.daemon) process.exit(result.code);
process.exitCode = result.code;
