/**
 * `mcpctl wait server/NAME|languageserver/NAME --for=condition=Ready[=false] [--timeout=30s]`,
 * like kubectl wait.
 *
 * Guarantees:
 * - Exit 0 printing `server/NAME condition met` as soon as the condition has the wanted status
 *   (default True) and is current: a condition whose observedGeneration is older than the
 *   server's generation does not count (kubectl's rule).
 * - Exit 1 when the timeout passes (or the daemon goes away), saying what the condition is
 *   now, or that the server does not exist (with the closest names).
 * - A server that does not exist yet is waited for: it may be about to be added.
 * - `--timeout=0` checks once.
 * - Bad usage exits 2 before anything is asked of the daemon: an unknown condition type (the
 *   message lists Admitted, Ready, UpToDate), or a timeout no timer can hold (> 2^31-1 ms,
 *   which setTimeout would turn into an immediate timeout).
 */
import type { Command } from 'commander';
import { findCondition, kindNamed } from '../../api/index.js';
import {
  commandEnv,
  progressSink,
  withSession,
  type GlobalOptions,
  type Io,
} from '../command-env.js';
import { withProgress, type ProgressLine } from '../progress.js';
import { CliError, UsageError, messageOf } from '../errors.js';
import { humanDuration, parseDuration } from '../output/age.js';
import type {
  LanguageServer,
  LanguageServerList,
  McpServer,
  McpServerList,
  WatchEvent,
} from '../objects.js';
import { parseObjectRef, refText, type ObjectRef } from '../object-ref.js';
import type { RpcClient } from '../rpc/client.js';
import type { Selector } from '../methods/context.js';

export interface WaitCondition {
  readonly type: string;
  /** True | False | Unknown */
  readonly status: string;
}

/** `server/NAME` or `languageserver/NAME` (a bare name is refused: wait names its kind). */
export function parseTarget(target: string): Required<ObjectRef> {
  const ref = target.includes('/') ? parseObjectRef(target) : undefined;
  if (ref?.kind === undefined)
    throw new UsageError(
      `wait needs a target like server/NAME or languageserver/NAME, got ${JSON.stringify(target)}`,
    );
  return { kind: ref.kind, name: ref.name };
}

/** The objects wait may watch: both kinds have the same conditions and generations. */
type Watched = McpServer | LanguageServer;

/** The condition types a server has (DESIGN §6); waiting for any other could never end. */
export const SERVER_CONDITION_TYPES = ['Admitted', 'Ready', 'UpToDate'] as const;

/** The longest wait a timer can hold (Node's setTimeout: 2^31-1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function parseFor(text: string): WaitCondition {
  const m = /^condition=([A-Za-z][A-Za-z0-9]*)(?:=(true|false|unknown))?$/i.exec(text);
  if (!m?.[1])
    throw new UsageError(
      `--for must be condition=TYPE or condition=TYPE=true|false, got ${JSON.stringify(text)}`,
    );
  const given = m[1];
  // Like kubectl, the type matches whatever its case.
  const type = SERVER_CONDITION_TYPES.find((t) => t.toLowerCase() === given.toLowerCase());
  if (type === undefined)
    throw new UsageError(
      `--for: a server has no condition ${JSON.stringify(given)}; use one of ${SERVER_CONDITION_TYPES.join(', ')}`,
    );
  const value = (m[2] ?? 'true').toLowerCase();
  return { type, status: value.charAt(0).toUpperCase() + value.slice(1) };
}

/** `--timeout` in ms: a duration up to MAX_TIMEOUT_MS. */
export function parseTimeout(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new UsageError(
      `--timeout must be a duration like 30s, 500ms or 2m, got ${JSON.stringify(text)}`,
    );
  if (ms > MAX_TIMEOUT_MS)
    throw new UsageError(
      `--timeout ${text} is longer than the longest wait, ${MAX_TIMEOUT_MS} ms (about 596h); pass a shorter one`,
    );
  return ms;
}

/** Does the server meet the condition now (and not by a stale observation)? */
export function meets(server: Watched, want: WaitCondition): boolean {
  const c = findCondition(server.status.conditions, want.type);
  if (!c) return false;
  const observed = c.observedGeneration ?? server.status.observedGeneration;
  if (observed !== undefined && observed < server.metadata.generation) return false;
  return c.status === want.status;
}

export function registerWait(program: Command, io: Io): void {
  program
    .command('wait')
    .description('wait until a server condition holds, e.g. --for=condition=Ready')
    .argument('<target>', 'server/NAME or languageserver/NAME')
    .requiredOption('--for <condition>', 'condition=TYPE[=true|false]')
    .option('--timeout <duration>', 'give up after this long (e.g. 30s, 2m; 0 checks once)', '30s')
    .action(async (target: string, _opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { for: string; timeout: string }>();
      const ref = parseTarget(target);
      const want = parseFor(opts.for);
      const timeoutMs = parseTimeout(opts.timeout);
      const env = commandEnv(opts, io);
      const wanted = `waiting for ${refText(ref.kind, ref.name)} ${want.type}=${want.status}`;
      await withProgress(progressSink(io), wanted, (line) =>
        withSession(env, (client) => waitFor(client, env.selector, ref, want, timeoutMs, line)),
      );
      io.out(`${refText(ref.kind, ref.name)} condition met\n`);
    });
}

async function waitFor(
  client: RpcClient,
  selector: Selector,
  ref: Required<ObjectRef>,
  want: WaitCondition,
  timeoutMs: number,
  line?: ProgressLine,
): Promise<void> {
  const { name } = ref;
  const waiting = `waiting for ${refText(ref.kind, name)} ${want.type}=${want.status}`;
  const shown = refText(ref.kind, name);
  let last: Watched | undefined;
  let result: 'met' | 'timeout' | 'lost';
  if (timeoutMs <= 0) {
    last = await current(client, selector, ref);
    result = last && meets(last, want) ? 'met' : 'timeout';
  } else {
    let settle: (outcome: 'met' | 'timeout' | 'lost') => void = () => undefined;
    const outcome = new Promise<'met' | 'timeout' | 'lost'>((resolve) => (settle = resolve));
    client.on('watch.event', (p) => {
      const e = p as WatchEvent<Watched>;
      last = e.type === 'DELETED' ? undefined : e.object;
      if (last && meets(last, want)) settle('met');
      else line?.update(`${waiting} (now ${conditionText(last, want.type)})`);
    });
    void client.closed.then(() => settle('lost'));
    await client.call('watch.start', {
      ...selector,
      topic: kindNamed(ref.kind).resource,
      names: [name],
    });
    const timer = setTimeout(() => settle('timeout'), timeoutMs);
    result = await outcome;
    clearTimeout(timer);
  }
  if (result === 'met') return;
  if (result === 'lost') throw new CliError('the mcpctl daemon went away while waiting');
  const wanted = `condition ${want.type}=${want.status}`;
  const after = humanDuration(timeoutMs);
  if (!last) {
    // Ask once more: the daemon's answer names the closest servers.
    let why = 'no such server';
    try {
      await current(client, selector, ref, true);
    } catch (err) {
      why = messageOf(err);
    }
    throw new CliError(`timed out after ${after} waiting for ${wanted} on ${shown}: ${why}`);
  }
  const now = conditionText(last, want.type);
  throw new CliError(
    `timed out after ${after} waiting for ${wanted} on ${shown} (now ${now}); 'mcpctl why ${shown}' says what blocks it`,
  );
}

/** `Ready=False ConnectFailed: …`, or that there is none yet (or no such server yet). */
function conditionText(server: Watched | undefined, type: string): string {
  if (!server) return 'no such server yet';
  const c = findCondition(server.status.conditions, type);
  return c
    ? `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${c.message}` : ''}`
    : `no ${type} condition yet`;
}

/** The server now, or undefined when it does not exist (`strict`: let the daemon's error out). */
async function current(
  client: RpcClient,
  selector: Selector,
  ref: Required<ObjectRef>,
  strict = false,
): Promise<Watched | undefined> {
  try {
    const list = await client.call<McpServerList | LanguageServerList>(
      `${kindNamed(ref.kind).resource}.list`,
      {
        ...selector,
        names: [ref.name],
      },
    );
    return list.items[0];
  } catch (err) {
    if (strict) throw err;
    return undefined;
  }
}
