/**
 * `mcpctl serve [--workspace DIR] [--allowed-mcp-server-names a,b] [--mcp-config FILE]
 * [--allowed-lsp-server-names a,b] [--lsp-config FILE] [--debounce-ms N] [--no-daemon]
 * [--meta-tools[=only]]`: the stdio MCP server an agent runs
 * (DESIGN §7). It connects to the daemon (starting one when none answers), opens the
 * workspace's session and its gateway there, and pipes the agent's MCP to it; `--no-daemon`
 * runs the controller and the gateway in this process.
 *
 * Guarantees: nothing but MCP is written to stdout, before, during and after serving; a
 * problem at start is a message on stderr and exit 1 (bad usage exit 2), as for every command.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { answerTimeoutMs } from '../answer-timeout.js';
import { translateError, type GlobalOptions } from '../command-env.js';
import { CliError, EXIT_FAILURE } from '../errors.js';
import { resolveSocketPath } from '../rpc/socket-path.js';
import {
  lspOptions,
  lspSessionOptions,
  nameList,
  nonNegativeInt,
  type LspFlags,
} from './daemon.js';

interface ServeFlags extends LspFlags {
  allowedMcpServerNames?: string[];
  mcpConfig?: string;
  debounceMs?: number;
  /** commander's `--no-daemon`: true unless the flag is given. */
  daemon: boolean;
  /** Absent: off; bare `--meta-tools`: true (add); `--meta-tools=only`: 'only'. */
  metaTools?: true | 'only';
}

/** The value of `--meta-tools=VALUE`: only `only` is one. */
function metaToolsMode(value: string): 'only' {
  if (value !== 'only')
    throw new InvalidArgumentError(
      `'${value}' is not a mode; use --meta-tools (add the two tools) or --meta-tools=only`,
    );
  return value;
}

export function registerServe(program: Command, onExit: (code: number) => void): void {
  const command = program
    .command('serve')
    .description(
      "stdio MCP server for an agent: serves the workspace's configured servers (tools named server__tool), live",
    )
    .addOption(
      new Option(
        '--allowed-mcp-server-names <names>',
        'ceiling: only these servers may ever run (comma-separated); settings can narrow it, never widen it',
      ).argParser(nameList),
    )
    .option('--mcp-config <file>', 'an extra file of mcpServers for this session (scope cli)');
  for (const option of lspOptions('this session')) command.addOption(option);
  command
    .addOption(
      new Option(
        '--debounce-ms <ms>',
        'how patient file watching is (default 300; see `mcpctl daemon --help`; for a daemon this starts)',
      ).argParser(nonNegativeInt),
    )
    .option('--no-daemon', 'run the controller in this process with its own servers')
    .addOption(
      new Option(
        '--meta-tools [only]',
        'add two tools whose names never change, to list and call the current tools (for agents that never re-list); =only: just those two',
      ).argParser(metaToolsMode),
    )
    .action(async (_opts: object, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & ServeFlags>();
      const workspace = existingDir(o.workspace ?? process.cwd());
      const mcpConfigPath = o.mcpConfig === undefined ? undefined : path.resolve(o.mcpConfig);
      const socket = resolveSocketPath({ flag: o.socket });
      const answerTimeout = answerTimeoutMs(o.answerTimeout);
      // Loaded here: only serve needs the SDK server classes (and, without a daemon, the pool).
      const { runServe } = await import('../serve/run.js');
      let code: number;
      try {
        code = await runServe({
          socket,
          workspace,
          ...(o.allowedMcpServerNames ? { ceiling: o.allowedMcpServerNames } : {}),
          ...(mcpConfigPath ? { mcpConfigPath } : {}),
          ...lspSessionOptions(o),
          ...(o.debounceMs === undefined ? {} : { debounceMs: o.debounceMs }),
          daemon: o.daemon,
          metaTools: o.metaTools === undefined ? 'off' : o.metaTools === true ? 'add' : o.metaTools,
          answerTimeoutMs: answerTimeout,
        });
      } catch (err) {
        // Exit explicitly on failure too: a half-opened session may have left handles behind.
        onExit(EXIT_FAILURE);
        throw translateError(err, socket);
      }
      // Like the daemon: exit explicitly, since library watchers may keep handles we no longer need.
      onExit(code);
    });
}

/** The realpath of an existing directory, or a CliError saying what to pass instead. */
function existingDir(dir: string): string {
  const abs = path.resolve(dir);
  if (!existsSync(abs) || !statSync(abs).isDirectory())
    throw new CliError(`workspace ${abs} is not a directory; pass an existing one to --workspace`);
  return realpathSync(abs);
}
