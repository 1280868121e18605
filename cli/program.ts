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
import { Command, CommanderError } from 'commander';
import { processIo, terminalSafeIo, type Io } from './command-env.js';
import { registerAdd, registerRemove } from './commands/add.js';
import { registerCompletion } from './commands/completion.js';
import { registerDaemon } from './commands/daemon.js';
import { approveSessionWord, registerDecisions } from './commands/decide.js';
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
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, messageOf } from './errors.js';
import { VERSION } from './version.js';

export interface RunResult {
  readonly code: number;
  /** True when the daemon ran: the process should exit even if handles linger. */
  readonly daemon: boolean;
}

export function buildProgram(io: Io, onDaemonExit: (code: number) => void): Command {
  const program = new Command('mcpctl');
  program
    .description("keeps an AI agent's MCP server connections equal to its config files, live")
    .version(VERSION, '-v, --version')
    .option(
      '--socket <path>',
      'daemon socket (default $MCPCTL_SOCKET, $XDG_RUNTIME_DIR/mcpctl/mcpctl.sock, ~/.mcpctl/mcpctl.sock)',
    )
    .option(
      '--workspace <dir>',
      'the workspace whose session to use (default: the current directory)',
    )
    .option(
      '--session <name>',
      "the session to use: its name as `get sessions` prints it, or a unique prefix (default: the folder's)",
    )
    .option('--show-secrets', 'print env and header values instead of <redacted>')
    .option(
      '--answer-timeout <duration>',
      'give up on a daemon that answers nothing this long (default $MCPCTL_ANSWER_TIMEOUT, else 10s; 0 waits forever)',
    )
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .showHelpAfterError("(run 'mcpctl --help' for usage)")
    .exitOverride();
  // Subcommands copy the settings above (exitOverride, output, help) when created.
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
  return program;
}

export async function run(argv: readonly string[], rawIo: Io = processIo): Promise<RunResult> {
  // Every word a command prints goes through here (serve and the daemon write no human text).
  const io = terminalSafeIo(rawIo);
  let daemon = false;
  let daemonCode = EXIT_OK;
  const program = buildProgram(io, (code) => {
    daemon = true;
    daemonCode = code;
  });
  try {
    const valued = new Set(
      program.options
        .filter((o) => o.required || o.optional)
        .flatMap((o) => [o.long, o.short])
        .filter((flag): flag is string => flag !== undefined),
    );
    const [node = 'node', script = 'mcpctl', ...words] = argv;
    await program.parseAsync([node, script, ...approveSessionWord(words, valued)], {
      from: 'node',
    });
    return { code: daemon ? daemonCode : EXIT_OK, daemon };
  } catch (err) {
    if (err instanceof CommanderError) {
      const ok =
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.exitCode === 0;
      return { code: ok ? EXIT_OK : EXIT_USAGE, daemon };
    }
    if (err instanceof CliError) {
      io.err(`${err.message}\n`);
      return { code: err.exitCode, daemon };
    }
    io.err(
      `mcpctl: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : messageOf(err)}\n`,
    );
    return { code: EXIT_FAILURE, daemon };
  }
}
