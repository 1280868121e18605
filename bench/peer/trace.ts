/**
 * Where one edit's time goes, for each system: an extra edit (not counted in the figures)
 * whose stages are timed from the system's own records, on this machine's clock.
 *
 * mcpctl: `mcpctl get servers NAME -o json --watch` runs during the edit; its stream carries
 * every condition transition of the edited server with its time.
 * - rollout: UpToDate turned False (RollingOut): the watcher saw the file, the settle rule
 *   found it complete and unchanged for its quiet period, the informer parsed and diffed, the queue handed the key to a worker, and the
 *   reconciler started connecting the new config.
 * - ready: UpToDate turned True again: the new process was spawned, initialized and listed its
 *   tools, and the registry swapped to it (the old one is released after).
 * mcp-hub: its log (debug level, ms timestamps).
 * - detected: "Config file change detected": chokidar's event plus its 200 ms stability wait.
 * - updated: "Updated server 'NAME'": config read and diffed, old process closed, new one
 *   connected (mcp-hub lists tools, resources, resource templates and prompts, in parallel).
 * Both: notified = the client received notifications/tools/list_changed; visible = the
 * client's tools/list answer that had the new tool.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { round } from '../stats.js';
import { MCPCTL, mcpctlEnv } from './mcpctl.js';
import { rawConnectOnce } from './raw.js';
import { edit, type EditResult, type RunContext } from './scenario.js';
import { sleep } from './system.js';
import { until } from '../../testing/until.js';

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime?: string;
}

export interface Stage {
  readonly stage: string;
  /** undefined: the record that ends it was not found. */
  readonly ms: number | undefined;
}

export interface EditTrace {
  readonly system: string;
  readonly visibleMs: number;
  /** A raw SDK connect of the fixture just before the traced edit: the connect stage's floor. */
  readonly rawConnectMs: number;
  readonly stages: readonly Stage[];
}

/** performance.now() → epoch ms, the clock of the daemon's and mcp-hub's records. */
const epoch = (perf: number) => performance.timeOrigin + perf;

/** Consecutive stages from points in ms after the write (0 is the write itself). */
function stages(points: ReadonlyArray<[string, number | undefined]>): Stage[] {
  let from: number | undefined = 0;
  return points.map(([stage, at]) => {
    const ms = from === undefined || at === undefined ? undefined : round(at - from, 1);
    from = at;
    return { stage, ms };
  });
}

/** The first notification after the write, if it came before the listing that showed the tool. */
function notifiedAfter(ctx: RunContext, e: EditResult): number | undefined {
  const n = ctx.sys.probe.notifications.find((t) => t >= e.writtenAt);
  return n === undefined || n > e.hit.at ? undefined : n - e.writtenAt;
}

/** Splits `mcpctl -o json --watch` output (pretty objects, each closing with `}` at column 0). */
function objects(buffer: string): { parsed: unknown[]; rest: string } {
  const parsed: unknown[] = [];
  let rest = buffer;
  for (let end = rest.indexOf('\n}\n'); end >= 0; end = rest.indexOf('\n}\n')) {
    parsed.push(JSON.parse(rest.slice(0, end + 2)));
    rest = rest.slice(end + 3);
  }
  return { parsed, rest };
}

export async function traceMcpctlEdit(
  ctx: RunContext,
  version: number,
  label: string,
): Promise<EditTrace> {
  const conditions: Condition[] = [];
  const watcher = spawn(
    process.execPath,
    [
      MCPCTL,
      'get',
      'servers',
      ctx.f.edited,
      '-o',
      'json',
      '--watch',
      '--workspace',
      ctx.dir.workspace,
    ],
    { env: mcpctlEnv(ctx.dir), cwd: ctx.dir.workspace, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let buffer = '';
  watcher.stdout.setEncoding('utf8');
  watcher.stdout.on('data', (chunk: string) => {
    const { parsed, rest } = objects(buffer + chunk);
    buffer = rest;
    for (const o of parsed)
      conditions.push(
        ...((o as { status?: { conditions?: Condition[] } }).status?.conditions ?? []),
      );
  });
  try {
    // The current state first: the edit must not race the watch's start.
    await until(
      'the watch to print the current state',
      () => (conditions.length ? true : undefined),
      { timeoutMs: 30_000 },
    );
    const raw = await rawConnectOnce();
    const e = await edit(ctx, version);
    await sleep(200); // The stream trails the daemon by a turn or two of its loop.
    const written = epoch(e.writtenAt);
    const at = (type: string, status: string): number | undefined => {
      const t = conditions
        .filter((c) => c.type === type && c.status === status && c.lastTransitionTime)
        .map((c) => Date.parse(c.lastTransitionTime ?? ''))
        .filter((ms) => ms >= written - 1)
        .sort((a, b) => a - b)[0];
      return t === undefined ? undefined : t - written;
    };
    const ready = at('UpToDate', 'True');
    const notified = notifiedAfter(ctx, e);
    return {
      system: label,
      visibleMs: round(e.ms, 1),
      rawConnectMs: round(raw, 1),
      stages: stages([
        [
          'watcher + settle (read, 40 ms unchanged) + informer + queue → reconcile',
          at('UpToDate', 'False'),
        ],
        ['spawn + initialize + tools/list of the new process, swap', ready],
        ['serve: session settles → list_changed at the client', notified ?? ready],
        ['client: tools/list round trip', e.ms],
      ]),
    };
  } finally {
    watcher.kill('SIGINT');
  }
}

export async function traceHubEdit(
  ctx: RunContext,
  version: number,
  logFile: string,
): Promise<EditTrace> {
  const raw = await rawConnectOnce();
  const e = await edit(ctx, version);
  const written = epoch(e.writtenAt);
  const records = readFileSync(logFile, 'utf8')
    .split('\n')
    .flatMap((line) => {
      try {
        const r = JSON.parse(line) as { message?: string; timestamp?: string };
        const t = Date.parse(r.timestamp ?? '');
        return typeof r.message === 'string' && t >= written - 1 ? [{ m: r.message, t }] : [];
      } catch {
        return []; // Its stack traces are not JSON.
      }
    });
  const first = (m: string) => {
    const r = records.find((x) => x.m === m);
    return r === undefined ? undefined : r.t - written;
  };
  const updated = first(`Updated server '${ctx.f.edited}'`);
  const notified = notifiedAfter(ctx, e);
  return {
    system: 'mcp-hub',
    visibleMs: round(e.ms, 1),
    rawConnectMs: round(raw, 1),
    stages: stages([
      [
        'chokidar event + awaitWriteFinish (200 ms stable, 100 ms polls)',
        first(`Config file change detected at ${ctx.sys.configFile}`),
      ],
      ['read + diff config, close old process, connect new one', updated],
      ['re-register tools → list_changed at the client', notified ?? updated],
      ['client: tools/list round trip', e.ms],
    ]),
  };
}

/** The trace as lines: each stage and its share of the edit→visible time. */
export function traceLines(t: EditTrace): string[] {
  const lines = [
    `  one ${t.system} edit traced: write → visible ${t.visibleMs.toFixed(0)} ms (a raw SDK connect just before: ${t.rawConnectMs.toFixed(0)} ms)`,
  ];
  for (const s of t.stages)
    lines.push(
      s.ms === undefined
        ? `    ${s.stage.padEnd(66)}     —`
        : `    ${s.stage.padEnd(66)} ${s.ms.toFixed(0).padStart(5)} ms ${((s.ms / t.visibleMs) * 100).toFixed(0).padStart(3)}%`,
    );
  return lines;
}
