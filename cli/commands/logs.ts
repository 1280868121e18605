/**
 * `mcpctl logs NAME [-f] [--tail N]`: a server's stderr, kubectl style, either kind
 * (`server/NAME`, `languageserver/NAME`, or a bare name one kind has).
 *
 * Guarantees:
 * - stdout is the server's lines only, one per line, each escaped on its own (api/escape.ts):
 *   no control character, ANSI sequence or bidi override of a server reaches the terminal raw,
 *   not even one that looks like our own colours. Notes (lines dropped, a new process) go to
 *   stderr.
 * - `--tail N` prints the last N lines kept (default: all the daemon keeps); N must be a whole
 *   number, else exit 2 and nothing is asked.
 * - A server that has not run in this session: exit 1 saying so and why (its Ready condition),
 *   and `mcpctl why`; with `-f` the same on stderr, then its lines once it starts. A remote
 *   server has no stderr: exit 1 saying so.
 * - `-f` prints each new line once as it comes, until interrupted (exit 0), its session closes
 *   or the daemon goes away (exit 1, saying which); listeners and signal handlers are removed.
 */
import type { Command } from 'commander';
import { escapeText } from '../../api/index.js';
import type { LogsAnswer, LogsEnd, LogsFollowAnswer, LogsLines } from '../methods/logs.js';
import { commandEnv, withSession, type GlobalOptions, type Io } from '../command-env.js';
import { CliError, UsageError } from '../errors.js';
import { parseObjectRef } from '../object-ref.js';
import type { RpcClient } from '../rpc/client.js';

interface LogsOptions extends GlobalOptions {
  follow?: boolean;
  tail?: string;
}

export function registerLogs(program: Command, io: Io): void {
  program
    .command('logs')
    .description("print a server's stderr (either kind); -f follows new lines as they come")
    .argument('<name>', 'server name, server/NAME or languageserver/NAME')
    .option('-f, --follow', 'keep printing new lines until interrupted')
    .option('--tail <n>', 'only the last N lines kept (default: all the daemon keeps)')
    .action(async (name: string, _opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<LogsOptions>();
      const tail = tailOf(opts.tail);
      const ref = parseObjectRef(name);
      const env = commandEnv(opts, io);
      const params = { ...env.selector, ...ref };
      const print = (lines: readonly string[]) => {
        for (const line of lines) io.out(`${escapeText(line)}\n`);
      };
      if (!opts.follow) {
        const answer = await withSession(env, (client) =>
          client.call<LogsAnswer>('logs.get', params),
        );
        refuseNothing(answer, name, false, io);
        print(lastLines(answer.lines, tail));
        return;
      }
      await withSession(env, (client) => follow(client, params, tail, name, io, print));
    });
}

/** `--tail`'s value: a whole number of lines, or absent. */
export function tailOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text))
    throw new UsageError(
      `--tail ${JSON.stringify(text)} is not a number of lines; give a whole number such as --tail 20`,
    );
  return Number(text);
}

/** The last `tail` of `lines` (all of them without a tail). */
export function lastLines(lines: readonly string[], tail: number | undefined): readonly string[] {
  if (tail === undefined) return lines;
  return tail === 0 ? [] : lines.slice(-tail);
}

/** Nothing to show and nothing will come: say why (exit 1), or with -f on stderr and wait. */
function refuseNothing(answer: LogsAnswer, name: string, following: boolean, io: Io): void {
  if (answer.remote)
    throw new CliError(`${answer.object} is a remote server (a URL): it has no stderr to show`);
  if (answer.ran || answer.lines.length > 0) return;
  const why = answer.notReady ? ` (${answer.notReady.reason}: ${answer.notReady.message})` : '';
  const text = `${answer.object} has not run in this session${why}; 'mcpctl why ${name}' says how to start it`;
  if (!following) throw new CliError(text);
  io.err(`${text}; waiting for it to start\n`);
}

async function follow(
  client: RpcClient,
  params: object,
  tail: number | undefined,
  name: string,
  io: Io,
  print: (lines: readonly string[]) => void,
): Promise<void> {
  // Batches may be dispatched before the answer is: held until its lines are printed.
  let held: LogsLines[] | undefined = [];
  let object = name;
  const show = (batch: LogsLines) => {
    if (batch.skipped > 0)
      io.err(
        `mcpctl: ${batch.skipped} lines of ${object} were dropped (written faster than they were read)\n`,
      );
    if (batch.restarted !== undefined)
      io.err(`mcpctl: ${object}: new process, pid ${batch.restarted}\n`);
    print(batch.lines);
  };
  const offLines = client.on('logs.lines', (p) => {
    const batch = p as LogsLines;
    if (held) held.push(batch);
    else show(batch);
  });
  let ended: LogsEnd | undefined;
  let onSignal: () => void = () => undefined;
  let offEnd: () => void = () => undefined;
  const stopped = new Promise<'interrupted' | 'ended' | 'lost'>((resolve) => {
    onSignal = () => resolve('interrupted');
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    offEnd = client.on('logs.end', (p) => {
      ended = p as LogsEnd;
      resolve('ended');
    });
    void client.closed.then(() => resolve('lost'));
  });
  let how: 'interrupted' | 'ended' | 'lost';
  try {
    const answer = await client.call<LogsFollowAnswer>('logs.follow', params);
    object = answer.object;
    refuseNothing(answer, name, true, io);
    print(lastLines(answer.lines, tail));
    for (const batch of held ?? []) show(batch);
    held = undefined;
    how = await stopped;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    offLines();
    offEnd();
  }
  if (how === 'ended') throw new CliError(`logs ended: ${ended?.reason ?? 'by the daemon'}`);
  if (how === 'lost') throw new CliError('the mcpctl daemon went away; the logs ended');
}
