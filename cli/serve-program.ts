/**
 * `mcpctl serve` alone: the root program (program-root.ts) with only the serve command, which
 * main.ts runs when the command word is `serve`. An agent starts one per session and keeps it
 * for the session's life, so it loads no other command, no schema and no printer (issue #37);
 * its flags, help and errors are the full program's, since the same registerServe builds them.
 */
import type { Command } from 'commander';
import { processIo, type Io } from './command-env.js';
import { registerServe } from './commands/serve.js';
import { runProgram, type RunResult } from './program-root.js';

function registerServeOnly(program: Command, _io: Io, onDaemonExit: (code: number) => void): void {
  registerServe(program, onDaemonExit);
}

export function run(argv: readonly string[], rawIo: Io = processIo): Promise<RunResult> {
  return runProgram(argv, registerServeOnly, rawIo);
}
