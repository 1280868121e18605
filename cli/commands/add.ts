/**
 * `mcpctl add NAME [options] -- COMMAND ARGS…`, `mcpctl add NAME --url URL` and `mcpctl remove
 * NAME`: edit mcpctl's server file (or a project's `.mcp.json`) as `claude mcp add`/`remove`
 * users expect (`-s/--scope local|user|project`, local the default; `-e/--env`,
 * `-H/--header`, `-t/--transport`). See server-places.ts for where each scope writes.
 *
 * Guarantees:
 * - No daemon is needed (they edit a file); a running daemon's sessions follow by their
 *   watcher, no reload needed. Edits go through api/'s editor: comments kept, atomic, refusals
 *   (a link, a FIFO, a file that does not parse or validate) name the file and change nothing.
 * - add: a name of another server already there is refused (exit 1) unless `--force`, saying
 *   so; the same entry again changes nothing (exit 0). What was written is printed with every
 *   env and header value and the URL's secrets hidden, whatever `--show-secrets` says.
 * - remove: without `--scope` it looks in every scope and removes the one it finds, refusing
 *   when it is in several; a name in none exits 1 naming every place it looked.
 * - Bad words (a bad `--env`, a command with `--url`) are usage errors (exit 2).
 */
import { Option, type Command } from 'commander';
import {
  addServer,
  quoted,
  readServerFile,
  removeServer,
  ServerFileError,
  workspaceServers,
  type ServerFileContent,
} from '../../api/index.js';
import type { GlobalOptions, Io } from '../command-env.js';
import { CliError } from '../errors.js';
import { entryOf, shownEntry, TRANSPORTS, type Transport } from './server-entry.js';
import {
  EDIT_SCOPES,
  placeOf,
  scopeOf,
  type EditScope,
  type ServerPlace,
} from './server-places.js';

interface AddOptions {
  scope?: string;
  transport?: Transport;
  url?: string;
  env?: string[];
  header?: string[];
  force?: boolean;
}

const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];

const SCOPE_HELP =
  'local (default): this workspace only, in ~/.mcpctl/mcp.json; user: every workspace, same file; project: <workspace>/.mcp.json, shared with the repository (needs approval before it starts)';

const ADD_EXAMPLES = `
Examples:
  mcpctl add fs -- npx -y @modelcontextprotocol/server-filesystem ~/src
  mcpctl add github -e GITHUB_TOKEN='\${GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github
  mcpctl add docs --url https://example.com/mcp -H 'Authorization: Bearer \${DOCS_TOKEN}'
  mcpctl add --scope project memory -- npx -y @modelcontextprotocol/server-memory

The file is $MCPCTL_SERVERS_PATH, else ~/.mcpctl/mcp.json (project: <workspace>/.mcp.json).
A running daemon follows the file by itself; no reload is needed.
`;

/** Words for where a place is: `~/.mcpctl/mcp.json (scope local: /ws only)`. */
function placeWords(place: ServerPlace): string {
  switch (place.scope) {
    case 'local':
      return `${place.file} (scope local: workspace ${place.workspace ?? ''} only)`;
    case 'user':
      return `${place.file} (scope user: every workspace)`;
    case 'project':
      return `${place.file} (scope project: shared with the repository)`;
  }
}

function cliErrorOf(err: unknown, hint = ''): unknown {
  return err instanceof ServerFileError ? new CliError(`${err.message}${hint}`) : err;
}

function optionsOf(place: ServerPlace) {
  return { workspace: place.workspace, private: place.private, shape: place.shape };
}

export function registerAdd(program: Command, io: Io): void {
  program
    .command('add')
    .description(
      "add a server to mcpctl's server file (no daemon needed; a running one follows the file)",
    )
    .argument('<name>', 'the server name')
    .argument(
      '[command...]',
      'after --: the command that starts the server and its args (with --transport http|sse: its URL)',
    )
    .addOption(new Option('-s, --scope <scope>', SCOPE_HELP).choices(EDIT_SCOPES))
    .addOption(
      new Option('-t, --transport <transport>', 'stdio (default), http or sse').choices(TRANSPORTS),
    )
    .option('--url <url>', "a remote server's URL (streamable HTTP; with --transport sse, SSE)")
    .option(
      '-e, --env <KEY=VALUE>',
      'an environment variable of the server (repeatable)',
      collect,
      [],
    )
    .option(
      '-H, --header <NAME:VALUE>',
      'an HTTP header of a remote server (repeatable)',
      collect,
      [],
    )
    .option('-f, --force', 'replace a server of that name that is there already')
    .addHelpText('after', ADD_EXAMPLES)
    .action(async (name: string, words: string[], opts: AddOptions, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const scope = scopeOf(opts.scope);
      const entry = entryOf({
        words,
        url: opts.url,
        transport: opts.transport,
        env: opts.env ?? [],
        headers: opts.header ?? [],
      });
      const place = placeOf(scope, globals.workspace);
      let outcome;
      try {
        outcome = await addServer(place.file, name, entry, {
          ...optionsOf(place),
          replace: opts.force === true,
        });
      } catch (err) {
        throw cliErrorOf(
          err,
          err instanceof ServerFileError && err.problem === 'exists'
            ? '; to replace it, run the same command with --force'
            : '',
        );
      }
      const shown = quoted(name);
      if (outcome.result === 'unchanged') {
        io.out(`server ${shown} is already in ${placeWords(place)} as given; nothing changed\n`);
        return;
      }
      const verb = outcome.result === 'added' ? 'added server' : 'replaced server';
      io.out(`${verb} ${shown} in ${placeWords(place)}:\n${shownEntry(entry)}\n`);
      io.err(
        scope === 'project'
          ? `a project server starts once approved: mcpctl approve ${shown} (a running daemon's agents are asked)\n`
          : 'a running mcpctl daemon follows the file by itself; no reload needed\n',
      );
    });
}

/** True when the server file content holds `name` at the place. */
function holds(content: ServerFileContent, place: ServerPlace, name: string): boolean {
  const servers =
    place.workspace === undefined ? content.mcpServers : workspaceServers(content, place.workspace);
  return servers !== undefined && Object.hasOwn(servers, name);
}

/** The places that hold `name` now, and those that could not be read. */
async function placesHolding(name: string, workspaceFlag: string | undefined) {
  const found: ServerPlace[] = [];
  const unreadable: string[] = [];
  const looked: ServerPlace[] = EDIT_SCOPES.map((s) => placeOf(s, workspaceFlag));
  for (const place of looked) {
    try {
      const read = await readServerFile(place.file, { shape: place.shape });
      if (holds(read.content, place, name)) found.push(place);
    } catch (err) {
      if (!(err instanceof ServerFileError)) throw err;
      unreadable.push(err.message);
    }
  }
  return { found, unreadable, looked };
}

export function registerRemove(program: Command, io: Io): void {
  program
    .command('remove')
    .description("remove a server from mcpctl's server file (or the project's .mcp.json)")
    .argument('<name>', 'the server name')
    .addOption(
      new Option(
        '-s, --scope <scope>',
        'local, user or project (default: wherever it is, refused when in several)',
      ).choices(EDIT_SCOPES),
    )
    .action(async (name: string, opts: { scope?: EditScope }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const shown = quoted(name);
      let place: ServerPlace;
      if (opts.scope !== undefined) {
        place = placeOf(opts.scope, globals.workspace);
      } else {
        const { found, unreadable, looked } = await placesHolding(name, globals.workspace);
        if (found.length > 1)
          throw new CliError(
            `server ${shown} is in ${found.length} places: ${found.map(placeWords).join('; ')}; say which with --scope ${found.map((p) => p.scope).join('|')}`,
          );
        if (found[0] === undefined) {
          const where = looked.map((p) => `${p.file} at ${p.where(name)}`).join(', ');
          const also = unreadable.length > 0 ? `; also: ${unreadable.join('; ')}` : '';
          throw new CliError(
            `no server ${shown}: looked in ${where}${also} (a server of a settings file or of --mcp-config is removed there, by hand)`,
          );
        }
        place = found[0];
      }
      let outcome;
      try {
        outcome = await removeServer(place.file, name, optionsOf(place));
      } catch (err) {
        throw cliErrorOf(err);
      }
      if (outcome.result === 'absent')
        throw new CliError(
          `no server ${shown} in ${placeWords(place)} at ${place.where(name)}; nothing was changed (without --scope, mcpctl remove looks in every scope)`,
        );
      io.out(`removed server ${shown} from ${placeWords(place)}\n`);
    });
}
