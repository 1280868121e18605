/**
 * `mcpctl daemon [--workspace DIR] [--allowed-mcp-server-names a,b] [--mcp-config FILE]
 * [--socket PATH] [--debounce-ms N] [--http [HOST:]PORT [--http-allow-remote]]`: runs the daemon
 * in the foreground (DESIGN §7). `--http` defaults to `$MCPCTL_HTTP`; a non-loopback address
 * is refused (exit 2) without `--http-allow-remote`; a token file that may not be trusted stops
 * the start (exit 1) before anything runs.
 */
import type { SessionFlags } from '../../api/index.js';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { SessionEnvSpec } from '../../controller/daemon.js';
import { humanDuration, parseDuration } from '../output/age.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import type { GlobalOptions } from '../command-env.js';
import { readStarterEnv, StarterEnvError } from '../serve/daemon-env.js';
import { INSIDE_MCPCTL_ENV } from '../agent/inert-port.js';
import { homeDirectory, resolveSocketPath } from '../rpc/socket-path.js';
import { isLoopbackHost, ListenAddressError, parseListenAddress } from '../http/address.js';
import { TokenFileError, ensureToken, tokenPath } from '../http/token.js';
import type { HttpServeOptions } from '../http/serve-http.js';
import { LOG_FORMATS, resolveLogFormat, type LogFormat } from '../output/log-lines.js';

/**
 * The command line's idle stop (issue #34): long enough that a server stays warm across an
 * agent's turn and the pause while its user reads the result (minutes), short enough that the
 * servers a session stopped using do not run for the rest of the day.
 */
export const DEFAULT_IDLE_STOP_MS = 10 * 60_000;

/** The variable that gives `--http` its default (a daemon `mcpctl serve` starts has it too). */
export const HTTP_ENV = 'MCPCTL_HTTP';

interface DaemonFlags extends LspFlags {
  allowedMcpServerNames?: string[];
  mcpConfig?: string;
  debounceMs: number;
  drainDelayMs?: number;
  idleStop: number;
  envFromStdin?: boolean;
  http?: string;
  httpAllowRemote?: boolean;
  logFormat: LogFormat;
}

export function nonNegativeInt(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('expected a whole number of milliseconds');
  return n;
}

/** `--idle-stop`: a duration (`10m`, `90s`, `0`), at most a day. */
function idleStop(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms > 86_400_000)
    throw new InvalidArgumentError('expected a duration like 10m, 90s or 0 (at most 24h)');
  return ms;
}

/** `a,b` → ['a','b']; repeated flags add up; empty names are dropped. */
export function nameList(text: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  ];
}

/** The language-server flags `daemon` and `serve` share. */
export interface LspFlags {
  allowedLspServerNames?: string[];
  lspConfig?: string;
}

/**
 * `--allowed-lsp-server-names a,b` (the language servers' ceiling; `""` is none) and
 * `--lsp-config FILE` (language servers of scope cli), for `daemon` and `serve` alike.
 */
export function lspOptions(forWhom: string): Option[] {
  return [
    new Option(
      '--allowed-lsp-server-names <names>',
      'ceiling: only these language servers may ever run (comma-separated; "" for none)',
    ).argParser(nameList),
    new Option(
      '--lsp-config <file>',
      `an extra file of language servers (a key per server, as in .lsp.json) for ${forWhom} (scope cli)`,
    ),
  ];
}

/** The options a session takes from LspFlags: an absolute `lspConfigPath`, the `lspCeiling`. */
export function lspSessionOptions(o: LspFlags): Pick<SessionFlags, 'lspCeiling' | 'lspConfigPath'> {
  return {
    ...(o.allowedLspServerNames ? { lspCeiling: o.allowedLspServerNames } : {}),
    ...(o.lspConfig === undefined ? {} : { lspConfigPath: path.resolve(o.lspConfig) }),
  };
}

export function registerDaemon(program: Command, onExit: (code: number) => void): void {
  const command = program
    .command('daemon')
    .description(
      'run the mcpctl daemon in the foreground (logs to stderr: readable lines on a terminal, JSON lines otherwise)',
    )
    .addOption(
      new Option(
        '--allowed-mcp-server-names <names>',
        'ceiling: only these servers may ever run (comma-separated); settings can narrow it, never widen it',
      ).argParser(nameList),
    )
    .option(
      '--mcp-config <file>',
      'an extra file of mcpServers for the default session (scope cli)',
    );
  for (const option of lspOptions('the default session')) command.addOption(option);
  command
    .addOption(
      new Option(
        '--debounce-ms <ms>',
        'how patient file watching is: a complete save applies after ms×2/15 unchanged (40 at 300), an incomplete one after up to ms of quiet',
      )
        .argParser(nonNegativeInt)
        .default(300),
    )
    .addOption(
      new Option(
        '--drain-delay-ms <ms>',
        'keep a connection nobody uses this long for a re-acquire',
      ).argParser(nonNegativeInt),
    )
    .addOption(
      new Option(
        '--idle-stop <duration>',
        'stop an MCP server after this long without requests; its next request starts it again (0: keep it while an agent holds it; a server entry may set its own idleStopMs)',
      )
        .argParser(idleStop)
        .default(DEFAULT_IDLE_STOP_MS, humanDuration(DEFAULT_IDLE_STOP_MS)),
    )
    .option(
      '--http <[host:]port>',
      `also serve MCP Streamable HTTP at http://HOST:PORT/mcp (host 127.0.0.1 unless given; port 0 picks a free one; default $${HTTP_ENV})`,
    )
    .addOption(
      new Option(
        '--log-format <format>',
        'auto: one readable line per event on a terminal, JSON lines otherwise; or text, json',
      )
        .choices(LOG_FORMATS)
        .default('auto'),
    )
    .option(
      '--http-allow-remote',
      'let --http bind a non-loopback address and take any Host header (anyone who can reach it and has the token can use your servers)',
    )
    .addOption(
      // How `mcpctl serve` hands its (the agent's) environment to the daemon it starts, for
      // the default session only: see serve/daemon-env.ts.
      new Option(
        '--env-from-stdin',
        "read the default session's environment as JSON from stdin",
      ).hideHelp(),
    )
    .action(async (_opts: object, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & DaemonFlags>();
      const workspace = path.resolve(o.workspace ?? process.cwd());
      if (!existsSync(workspace) || !statSync(workspace).isDirectory())
        throw new CliError(
          `workspace ${workspace} is not a directory; pass an existing one to --workspace`,
        );
      const mcpConfigPath = o.mcpConfig === undefined ? undefined : path.resolve(o.mcpConfig);
      const socket = resolveSocketPath({ flag: o.socket });
      // Every server this daemon starts inherits it: a `mcpctl serve` entry among them (the
      // agent's own, in a file the daemon watches) then offers nothing instead of proxying
      // mcpctl into itself. A daemon started by serve has it already.
      const mark = (process.env[INSIDE_MCPCTL_ENV] ??= `the mcpctl daemon at ${socket}`);
      // Given to every server explicitly: an agent's session does not have it in its variables.
      const serverEnv = { [INSIDE_MCPCTL_ENV]: mark };
      let defaultSessionEnv: SessionEnvSpec | undefined;
      if (o.envFromStdin) {
        try {
          defaultSessionEnv = await readStarterEnv(process.stdin);
        } catch (err) {
          if (err instanceof StarterEnvError) throw new CliError(err.message, EXIT_USAGE);
          throw err;
        }
      }
      const http = httpOptions(o);
      // Loaded here: only the daemon needs the controller, pool and SDK, not every CLI call.
      const { runDaemon } = await import('../daemon-main.js');
      const code = await runDaemon({
        socket,
        workspace,
        ...(o.allowedMcpServerNames ? { ceiling: o.allowedMcpServerNames } : {}),
        ...(mcpConfigPath ? { mcpConfigPath } : {}),
        ...lspSessionOptions(o),
        debounceMs: o.debounceMs,
        ...(o.drainDelayMs === undefined ? {} : { drainDelayMs: o.drainDelayMs }),
        idleStopMs: o.idleStop,
        ...(defaultSessionEnv ? { defaultSessionEnv } : {}),
        serverEnv,
        ...(http ? { http } : {}),
        logFormat: resolveLogFormat(o.logFormat, process.stderr.isTTY === true),
      });
      onExit(code);
    });
}

/** `--http` (or $MCPCTL_HTTP) checked, with the token made or read; undefined without it. */
function httpOptions(o: DaemonFlags): HttpServeOptions | undefined {
  const given = o.http ?? process.env[HTTP_ENV];
  if (given === undefined || given.trim() === '') return undefined;
  let address;
  try {
    address = parseListenAddress(given);
  } catch (err) {
    if (err instanceof ListenAddressError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
  const allowRemote = o.httpAllowRemote === true;
  if (!isLoopbackHost(address.host) && !allowRemote)
    throw new CliError(
      `--http ${given}: ${address.host} is not a loopback address, so other machines could reach your MCP servers; bind 127.0.0.1 (the default), or add --http-allow-remote if you mean it (see the README's Security section)`,
      EXIT_USAGE,
    );
  try {
    const token = ensureToken(tokenPath(homeDirectory()));
    return { host: address.host, port: address.port, allowRemote, token };
  } catch (err) {
    if (err instanceof TokenFileError) throw new CliError(err.message);
    throw err;
  }
}
