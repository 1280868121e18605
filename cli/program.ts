/**
 * The `mcpctl` command line (DESIGN §7), built with commander.
 *
 * Guarantees:
 * - Exit 0 on success, 1 on failure (the message on stderr says what and what to do), 2 on
 *   bad usage (unknown command or option, bad value; commander's message plus a usage hint).
 * - Global flags (`--socket`, `--workspace`, `--session`, `--show-secrets`, `--answer-timeout`)
 *   work before or after the command name.
 * - `--help` and `--version` exit 0.
 */
import type { Command } from 'commander';
import { processIo, type Io } from './command-env.js';
import { registerAdd, registerRemove } from './commands/add.js';
import { registerCompletion } from './commands/completion.js';
import { registerDaemon } from './commands/daemon.js';
import { registerDecisions } from './commands/decide.js';
import { registerDescribe } from './commands/describe.js';
import { registerGet } from './commands/get.js';
import { registerLogin } from './commands/login.js';
import { registerLogs } from './commands/logs.js';
import { registerReload } from './commands/reload.js';
import { registerServe } from './commands/serve.js';
import { registerSetup } from './commands/setup.js';
import { registerStop } from './commands/stop.js';
import { registerToken } from './commands/token.js';
import { registerVersion } from './commands/version.js';
import { registerWait } from './commands/wait.js';
import { registerWhy } from './commands/why.js';
import { rootProgram, runProgram, type RunResult } from './program-root.js';

export type { RunResult } from './program-root.js';

/** Every command, in the order `--help` lists them. */
function registerAll(program: Command, io: Io, onDaemonExit: (code: number) => void): void {
  registerDaemon(program, onDaemonExit);
  registerGet(program, io);
  registerLogin(program, io);
  registerDescribe(program, io);
  registerLogs(program, io);
  registerDecisions(program, io);
  registerWhy(program, io);
  registerReload(program, io);
  registerWait(program, io);
  registerStop(program, io);
  registerToken(program, io);
  registerAdd(program, io);
  registerRemove(program, io);
  registerSetup(program, io);
  registerServe(program, onDaemonExit);
  registerVersion(program, io);
  // Last: its script is made from every command registered before it.
  registerCompletion(program, io);
}

export function buildProgram(io: Io, onDaemonExit: (code: number) => void): Command {
  return rootProgram(io, onDaemonExit, registerAll);
}

export function run(argv: readonly string[], rawIo: Io = processIo): Promise<RunResult> {
  return runProgram(argv, registerAll, rawIo);
}
