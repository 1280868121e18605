/**
 * The root of `mcpctl`'s command line, whatever commands it carries: the global options, the
 * help and output settings, and one run with its exit codes (0, 1 on failure, 2 on bad usage).
 * program.ts gives it every command; serve-program.ts only `serve`, so an agent's
 * `mcpctl serve` loads no other command (issue #37: it is a pipe).
 */
import { Command, CommanderError } from 'commander';
import { processIo, terminalSafeIo, type Io } from './command-env.js';
import { approveSessionWord } from './commands/approve-session-word.js';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, messageOf } from './errors.js';
import { VERSION } from './version.js';

export interface RunResult {
  readonly code: number;
  /** True when the daemon ran: the process should exit even if handles linger. */
  readonly daemon: boolean;
}

export type Register = (program: Command, io: Io, onDaemonExit: (code: number) => void) => void;

/** The root program with the commands `register` adds. */
export function rootProgram(
  io: Io,
  onDaemonExit: (code: number) => void,
  register: Register,
): Command {
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
  register(program, io, onDaemonExit);
  return program;
}

/** Parses `argv` with the commands `register` adds and runs the one it names. */
export async function runProgram(
  argv: readonly string[],
  register: Register,
  rawIo: Io = processIo,
): Promise<RunResult> {
  // Every word a command prints goes through here (serve and the daemon write no human text).
  const io = terminalSafeIo(rawIo);
  let daemon = false;
  let daemonCode = EXIT_OK;
  const program = rootProgram(
    io,
    (code) => {
      daemon = true;
      daemonCode = code;
    },
    register,
  );
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
