/**
 * `mcpctl get servers|languageservers|sessions|events|connections [NAME...]
 * [-o table|wide|json|yaml|name] [--watch] [-A]`.
 *
 * Guarantees: `-o json` prints the daemon's McpServerList / LanguageServerList / SessionList /
 * EventList / ConnectionList exactly (DESIGN §6), or the bare object for a single named server; `--watch`
 * prints the current state, then every change, until SIGINT (exit 0) or until the daemon goes
 * away (exit 1). Connections are the daemon's whole pool (no session selects them) and have
 * no watch. A config file of the session that does not parse or validate is a `warning:` line
 * on stderr (command-env.ts withSession; for `get sessions`, per session from its ConfigValid).
 * `-A` lists every session's servers, language servers or events as one list, each item
 * annotated with its session (all-sessions.ts).
 */
import { Argument, Option, type Command } from 'commander';
import {
  commandEnv,
  withDaemon,
  withSession,
  type CommandEnv,
  type GlobalOptions,
  type Io,
} from '../command-env.js';
import { CliError, UsageError } from '../errors.js';
import { checkAllSessions, listAllSessions, withSessionColumn } from './all-sessions.js';
import {
  OUTPUT_FORMATS,
  WatchPrinter,
  formatList,
  type ListLike,
  type OutputFormat,
} from '../output/format.js';
import {
  connectionPrinter,
  eventPrinter,
  languageServerPrinter,
  serverPrinter,
  sessionPrinter,
  type ObjectPrinter,
} from '../output/printers.js';
import type { RpcClient } from '../rpc/client.js';
import type { SessionList, WatchEnd, WatchEvent, WatchTopic } from '../objects.js';
import {
  findCondition,
  kindNamed,
  kindOfResource,
  LANGUAGE_SERVER,
  MCP_SERVER,
  SERVER_KINDS,
  type KindResource,
  type PerKind,
} from '../../api/index.js';

/**
 * What `get` lists: every watch topic, and the pool's connections. (The user calls it a
 * `<resource>`, as kubectl does; in the code "resource" is an MCP resource.)
 */
type TopicName = WatchTopic | 'connections';

/** Every word `get` takes, and the topic it names: the kinds' TYPE words, then the others. */
const ALIASES: Record<string, TopicName> = {
  ...Object.fromEntries(
    SERVER_KINDS.flatMap((kind) => {
      const { resource, typeWords } = kindNamed(kind);
      return [resource, ...typeWords].map((word) => [word, resource]);
    }),
  ),
  sessions: 'sessions',
  session: 'sessions',
  events: 'events',
  event: 'events',
  ev: 'events',
  connections: 'connections',
  connection: 'connections',
  conn: 'connections',
};

interface GetOptions {
  output: OutputFormat;
  watch?: boolean;
  allSessions?: boolean;
}

interface Topic {
  readonly method: string;
  readonly printer: ObjectPrinter<never>;
}

/** How each kind's objects print (the objects the daemon sends for its topic). */
const KIND_PRINTERS: PerKind<ObjectPrinter<never>> = {
  [MCP_SERVER]: serverPrinter,
  [LANGUAGE_SERVER]: languageServerPrinter,
};

const TOPICS: Record<TopicName, Topic> = {
  ...(Object.fromEntries(
    SERVER_KINDS.map((kind) => {
      const { resource } = kindNamed(kind);
      return [resource, { method: `${resource}.list`, printer: KIND_PRINTERS[kind] }];
    }),
  ) as Record<KindResource, Topic>),
  sessions: { method: 'sessions.list', printer: sessionPrinter },
  events: { method: 'events.list', printer: eventPrinter },
  connections: { method: 'connections.list', printer: connectionPrinter },
};

/** Whether a topic is a kind's objects (which take names and `--show-secrets`). */
function isKindTopic(topic: TopicName): topic is KindResource {
  return kindOfResource(topic) !== undefined;
}

export function registerGet(program: Command, io: Io): void {
  program
    .command('get')
    .description('list servers, language servers, sessions, events or connections (the pool)')
    .addArgument(
      new Argument(
        '<resource>',
        'servers, languageservers (lsp), sessions, events or connections',
      ).choices(Object.keys(ALIASES)),
    )
    .argument('[names...]', 'only these servers (or language servers)')
    .addOption(
      new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS).default('table'),
    )
    .option('-w, --watch', 'after the list, stream every change until interrupted')
    .option(
      '-A, --all-sessions',
      "every session's servers, language servers or events, with a SESSION column",
    )
    .action(async (resource: string, names: string[], _opts: GetOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & GetOptions>();
      const topic = ALIASES[resource];
      if (!topic) throw new UsageError(`unknown resource ${resource}`);
      if (names.length > 0 && !isKindTopic(topic))
        throw new UsageError(
          `names are accepted for servers and languageservers only, not for ${topic}`,
        );
      if (opts.watch && topic === 'connections')
        throw new UsageError(
          '--watch is not available for connections; run `mcpctl get connections` again',
        );
      checkAllSessions({
        ...opts,
        ...(topic === 'sessions' || topic === 'connections' ? { daemonWide: topic } : {}),
      });
      const env = commandEnv(opts, io);
      if (opts.watch && topic !== 'connections') await watch(env, topic, names, opts.output);
      else if (opts.allSessions) await listAll(env, topic, names, opts.output);
      else await list(env, topic, names, opts.output);
    });
}

function params(env: CommandEnv, topic: TopicName, names: string[]): object {
  return {
    ...env.selector,
    ...(isKindTopic(topic) ? { names, showSecrets: env.showSecrets } : {}),
  };
}

async function list(
  env: CommandEnv,
  topic: TopicName,
  names: string[],
  format: OutputFormat,
): Promise<void> {
  const t = TOPICS[topic];
  // Sessions and connections are the daemon's, not one session's: no selector.
  const daemonWide = topic === 'sessions' || topic === 'connections';
  const run = daemonWide ? withDaemon : withSession;
  const result = await run(env, (client) =>
    client.call<ListLike<never>>(t.method, daemonWide ? {} : params(env, topic, names)),
  );
  const printed = formatList(result, t.printer, format, {
    now: env.now(),
    style: env.style,
    single: names.length === 1,
  });
  env.io.out(printed.stdout);
  if (printed.stderr) env.io.err(printed.stderr);
  if (topic === 'sessions') warnInvalidSessions(env, result as unknown as SessionList);
}

/** `-A`: every session's list of `topic`, one table with a SESSION column (all-sessions.ts). */
async function listAll(
  env: CommandEnv,
  topic: TopicName,
  names: string[],
  format: OutputFormat,
): Promise<void> {
  const t = TOPICS[topic];
  const result = await withDaemon(env, (client) =>
    listAllSessions<never>(client, t.method, params(env, topic, names)),
  );
  const printed = formatList(result, withSessionColumn(t.printer), format, {
    now: env.now(),
    style: env.style,
  });
  env.io.out(printed.stdout);
  if (printed.stderr) env.io.err(printed.stderr);
}

/** A session whose files do not all parse or validate: a warning line on stderr saying so. */
function warnInvalidSessions(env: CommandEnv, list: SessionList): void {
  for (const s of list.items) {
    const valid = findCondition(s.status.conditions, 'ConfigValid');
    if (valid?.status === 'False')
      env.io.err(`warning: session ${s.metadata.name} (${s.spec.workspace}): ${valid.message}\n`);
  }
}

async function watch(
  env: CommandEnv,
  topic: WatchTopic,
  names: string[],
  format: OutputFormat,
): Promise<void> {
  const printer = new WatchPrinter<never>({
    printer: TOPICS[topic].printer,
    format,
    write: (text) => env.io.out(text),
    style: env.style,
    now: () => env.now(),
  });
  const run = topic === 'sessions' ? withDaemon : withSession;
  await run(env, (client) => streamWatch(client, { topic, ...params(env, topic, names) }, printer));
}

/**
 * Starts a watch and prints its events until SIGINT. One watch per connection, so every
 * `watch.event` on it is ours (they may be dispatched before the start response is).
 */
async function streamWatch(
  client: RpcClient,
  start: object,
  printer: WatchPrinter<never>,
): Promise<void> {
  let ended: WatchEnd | undefined;
  client.on('watch.event', (p) => {
    const e = p as WatchEvent<never>;
    printer.push(e.type, e.object);
  });
  let onSignal: () => void = () => undefined;
  const stopped = new Promise<'interrupted' | 'ended' | 'lost'>((resolve) => {
    onSignal = () => resolve('interrupted');
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    client.on('watch.end', (p) => {
      ended = p as WatchEnd;
      resolve('ended');
    });
    void client.closed.then(() => resolve('lost'));
  });
  let how: 'interrupted' | 'ended' | 'lost';
  try {
    await client.call('watch.start', start);
    how = await stopped;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  printer.flush();
  if (how === 'ended') throw new CliError(`watch ended: ${ended?.reason ?? 'by the daemon'}`);
  if (how === 'lost') throw new CliError('the mcpctl daemon went away; the watch ended');
}
