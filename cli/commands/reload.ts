/**
 * `mcpctl reload` (re-read every source, reconcile, print what changed when settled) and
 * `mcpctl diff` (what a reload would do; connects nothing). Lines: `+ add`, `- remove`,
 * `~ restart (fields)`, `= keep`, `! blocked (reason)`. A config file that does not parse or
 * validate is an `error:` line on stderr naming the file, line and fix, and exit 1.
 */
import type { Command } from 'commander';
import type { DiffLine } from '../../controller/reload-preview.js';
import {
  commandEnv,
  progressSink,
  withSession,
  type GlobalOptions,
  type Io,
} from '../command-env.js';
import { withProgress } from '../progress.js';
import { escapeField } from '../../api/index.js';
import { CliError } from '../errors.js';
import type { Style } from '../output/style.js';

/** The lines, painted; the formatter loads here, not with every command (see serve). */
async function painter(style: Style): Promise<(line: DiffLine) => string> {
  const { formatDiffLine } = await import('../../controller/reload-preview.js');
  return (line) => paint(style, line, formatDiffLine);
}

function paint(style: Style, line: DiffLine, format: (line: DiffLine) => string): string {
  // One line per server, whatever its name holds.
  const text = format({ ...line, name: escapeField(line.name) });
  switch (line.action) {
    case 'add':
      return style.green(text);
    case 'remove':
      return style.red(text);
    case 'restart':
    case 'blocked':
      return style.yellow(text);
    case 'keep':
      return style.dim(text);
  }
}

/**
 * A file that does not parse or validate fails the command (exit 1): an `error:` line per
 * file (where, the fix, what is in force), then what to do.
 */
function failOnConfigErrors(io: Io, warnings: readonly string[], what: string): void {
  if (warnings.length === 0) return;
  for (const w of warnings) io.err(`error: ${w}\n`);
  const one = warnings.length === 1;
  throw new CliError(
    `${what}: ${one ? 'a config file does' : `${warnings.length} config files do`} not parse or validate; fix ${one ? 'it' : 'them'} as said above and save (the change applies at once)`,
  );
}

export function registerReload(program: Command, io: Io): void {
  program
    .command('reload')
    .description('re-read every config source, reconcile, and print what changed once settled')
    .action(async (_opts: object, cmd: Command) => {
      const env = commandEnv(cmd.optsWithGlobals<GlobalOptions>(), io);
      const { changes, configWarnings = [] } = await withProgress(
        progressSink(io),
        'reloading: waiting for every server to settle',
        () =>
          withSession(
            env,
            (client) =>
              client.call<{ changes: DiffLine[]; configWarnings?: string[] }>(
                'session.reload',
                env.selector,
              ),
            { configWarnings: false },
          ),
      );
      const shown = changes.filter((l) => l.action !== 'keep');
      const painted = await painter(env.style);
      for (const line of shown) io.out(`${painted(line)}\n`);
      const kept = changes.length - shown.length;
      failOnConfigErrors(io, configWarnings, 'reload');
      if (shown.length === 0)
        io.out(`no changes (${kept} server${kept === 1 ? '' : 's'} unchanged)\n`);
    });
  program
    .command('diff')
    .description('show what a reload would add, remove, restart, keep or block; connects nothing')
    .action(async (_opts: object, cmd: Command) => {
      const env = commandEnv(cmd.optsWithGlobals<GlobalOptions>(), io);
      const { lines, configWarnings = [] } = await withSession(
        env,
        (client) =>
          client.call<{ lines: DiffLine[]; configWarnings?: string[] }>(
            'session.diff',
            env.selector,
          ),
        { configWarnings: false },
      );
      const painted = await painter(env.style);
      for (const line of lines) io.out(`${painted(line)}\n`);
      failOnConfigErrors(io, configWarnings, 'diff');
      if (lines.length === 0) io.out('no servers configured\n');
    });
}
