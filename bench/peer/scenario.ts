/**
 * One peer run: N fixture servers behind one system, then the same steps for every system.
 *
 * 1. Edits: the edited server's args change so that it offers a new tool; timed from the
 *    file write to the first tools/list answer that contains it. Listings are sampled from the
 *    write until TAIL_MS after that answer; a sample lacking any other server's tool is a gap.
 *    After each edit (and up to 1 s for the edited server's old process to end), every other
 *    server whose pid changed, or whose process is gone, counts as an unchanged restart.
 *    Each edit is preceded by a raw SDK connect of the fixture: the load of the moment (the
 *    machine is shared) weighs on both, and `overRawMs` is what the system adds to the cost
 *    of starting the server.
 * 2. Format-only: the same content rewritten in another layout; every pid that changes within
 *    FORMAT_WATCH_MS (well past both systems' windows plus a connect) is a restart.
 * 3. Crash: a server that exits CRASH_AFTER_MS after start is added; once its process is gone,
 *    and CRASH_SETTLE_MS later, the system's own status for it is compared with whether a
 *    process of it is running then (a system may restart it): truthful when they agree.
 */
import { performance } from 'node:perf_hooks';
import { killAll, processesMentioning, running } from '../processes.js';
import { median, round } from '../stats.js';
import { rawConnectOnce } from './raw.js';
import {
  BASE_TOOL,
  CRASHER,
  fleet,
  restarted,
  writePretty,
  writeReformatted,
  type Fleet,
} from './fleet.js';
import type { Sample } from './probe.js';
import {
  qualified,
  runDir,
  sleep,
  type RunDir,
  type SystemKind,
  type SystemUnderTest,
} from './system.js';
import { until } from '../../testing/until.js';

const EDIT_TIMEOUT_MS = 30_000;
/** Sampling goes on this long after the new tool showed: a late gap counts too. */
const TAIL_MS = 300;
const FORMAT_WATCH_MS = 1500;
/** How long an edit waits for the edited server's old process to end before the next one. */
const OLD_PROCESS_WAIT_MS = 1000;
/** Time a system gets to notice the crash before it is asked about it. */
const CRASH_SETTLE_MS = 500;

export interface EditResult {
  /** Write → first listing with the new tool, ms. */
  readonly ms: number;
  /** Round trips of every tools/list sampled, ms. */
  readonly listMs: readonly number[];
  /** performance.now() just before the write. */
  readonly writtenAt: number;
  readonly hit: Sample;
  readonly samples: number;
  readonly gapSamples: number;
  /** Samples lacking the edited server's own BASE_TOOL (a restart gap, not counted as a gap). */
  readonly changedGapSamples: number;
  readonly unchangedRestarts: number;
}

export interface RunFigures {
  readonly n: number;
  /** Start of the system until every server's tool is listed, ms. */
  readonly startupMs: number;
  readonly medianReloadMs: number;
  readonly reloadMs: readonly number[];
  /** Median raw SDK connect, each one taken just before an edit. */
  readonly rawConnectMs: number;
  readonly rawSamplesMs: readonly number[];
  /** Median of (edit → listed) − (the raw connect just before it): the system's own share. */
  readonly overRawMs: number;
  /** Median tools/list round trip while edits were sampled (N tools per answer). */
  readonly listMs: number;
  readonly unchangedRestarts: number;
  readonly gapSamples: number;
  readonly samples: number;
  readonly changedServerGapSamples: number;
  readonly formatOnlyRestarts: number;
  readonly crashReported: string;
  readonly crashTruthful: boolean;
  /** Processes of the run still alive after the system was closed (killed then). */
  readonly leftovers: number;
}

export interface RunContext {
  readonly sys: SystemUnderTest;
  readonly dir: RunDir;
  readonly f: Fleet;
}

/** Extra work after the counted edits (the trace); returns the config version it left. */
export type AfterEdits = (ctx: RunContext, version: number) => Promise<number>;

/** Waits until `pid` has ended or `ms` passed; true when it ended. */
async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (running(pid)) {
    if (performance.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** One edit to `version`; see the file comment for what is counted. */
export async function edit(ctx: RunContext, version: number): Promise<EditResult> {
  const { sys, f } = ctx;
  const others = f.names.filter((n) => n !== f.edited);
  const otherTools = others.map((n) => qualified(n, BASE_TOOL));
  const ownTool = qualified(f.edited, BASE_TOOL);
  const newTool = qualified(f.edited, f.versionTool(version));
  const before = f.pids(others);
  const oldPid = f.pid(f.edited);

  const writtenAt = performance.now();
  writePretty(sys.configFile, f.config(version));
  const waited = await sys.probe.watch({
    done: (s) => s.tools.has(newTool),
    timeoutMs: EDIT_TIMEOUT_MS,
  });
  if (!waited.hit) throw new Error(`${newTool} not listed ${EDIT_TIMEOUT_MS} ms after the edit`);
  const tail = await sys.probe.watch({ done: () => false, timeoutMs: TAIL_MS, keepGoing: true });
  // Let the old process's exit fall outside the next measurement where it is prompt (mcp-hub
  // closes it before connecting the new one); mcpctl's pool keeps a released connection for
  // its drain delay (30 s), and that is its behaviour to measure, not to wait out.
  if (oldPid !== undefined) await gone(oldPid, OLD_PROCESS_WAIT_MS);

  const all = [...waited.samples, ...tail.samples];
  return {
    ms: waited.hit.at - writtenAt,
    listMs: all.map((s) => s.at - s.sentAt),
    writtenAt,
    hit: waited.hit,
    samples: all.length,
    gapSamples: all.filter((s) => otherTools.some((t) => !s.tools.has(t))).length,
    changedGapSamples: all.filter((s) => !s.tools.has(ownTool)).length,
    unchangedRestarts: restarted(f, before).length,
  };
}

async function formatOnly(ctx: RunContext, version: number): Promise<number> {
  const before = ctx.f.pids(ctx.f.names);
  writeReformatted(ctx.sys.configFile, ctx.f.config(version));
  await ctx.sys.probe.watch({ done: () => false, timeoutMs: FORMAT_WATCH_MS, keepGoing: true });
  return restarted(ctx.f, before).length;
}

async function crash(
  ctx: RunContext,
  version: number,
): Promise<{ text: string; truthful: boolean }> {
  const { sys, f } = ctx;
  const tool = qualified(CRASHER, BASE_TOOL);
  writePretty(sys.configFile, f.config(version, true));
  const shown = await sys.probe.watch({ done: (s) => s.tools.has(tool), timeoutMs: 20_000 });
  if (!shown.hit) throw new Error(`${tool} never listed`);
  const pid = await until('the crasher’s pid file', () => f.pid(CRASHER), { timeoutMs: 5000 });
  if (!(await gone(pid, 10_000))) throw new Error(`the crasher (pid ${pid}) did not exit`);
  await sleep(CRASH_SETTLE_MS);

  // A system may have started it again meanwhile: then "connected" is the truth. The three
  // looks are not one instant, so they count only when the process did not start or end
  // between them (a fast fixture restarts within the back-off).
  for (let attempt = 0; ; attempt++) {
    const pidBefore = f.pid(CRASHER);
    const aliveBefore = pidBefore !== undefined && running(pidBefore);
    const status = await sys.status(CRASHER);
    const listed = (await sys.probe.sample()).tools.has(tool);
    const now = f.pid(CRASHER);
    const alive = now !== undefined && running(now);
    if ((now !== pidBefore || alive !== aliveBefore) && attempt < 5) {
      await sleep(100);
      continue;
    }
    const truthful = status.connected === alive && listed === alive;
    const text = `${status.text}; tool ${listed ? 'listed' : 'not listed'}; process ${alive ? `running again (pid ${now})` : 'gone'}`;
    return { text, truthful };
  }
}

/** Starts `kind` on N servers, runs the steps, closes everything it started. */
export async function runScenario(
  kind: SystemKind,
  n: number,
  opts: { edits: number; afterEdits?: AfterEdits; log: (line: string) => void },
): Promise<RunFigures> {
  const dir = runDir(`${kind.key}-n${n}`);
  const f = fleet(n, dir.root);
  let sys: SystemUnderTest | undefined;
  let ok = false;
  try {
    const started = performance.now();
    sys = await kind.start(f, dir, f.config(0));
    const startupMs = performance.now() - started;
    const ctx: RunContext = { sys, dir, f };

    const edits: EditResult[] = [];
    const raws: number[] = [];
    for (let v = 1; v <= opts.edits; v++) {
      raws.push(await rawConnectOnce());
      edits.push(await edit(ctx, v));
    }
    let version = opts.edits;
    if (opts.afterEdits) version = await opts.afterEdits(ctx, version);
    const formatOnlyRestarts = await formatOnly(ctx, version);
    const crashed = await crash(ctx, version);

    const sum = (pick: (e: EditResult) => number) => edits.reduce((a, e) => a + pick(e), 0);
    const reloadMs = edits.map((e) => round(e.ms, 1));
    opts.log(`      reload ms: ${reloadMs.join(' ')}`);
    opts.log(`      raw connect ms: ${raws.map((x) => x.toFixed(0)).join(' ')}`);
    const figures: Omit<RunFigures, 'leftovers'> = {
      n,
      startupMs: round(startupMs, 0),
      medianReloadMs: round(median(edits.map((e) => e.ms)), 1),
      reloadMs,
      rawConnectMs: round(median(raws), 1),
      rawSamplesMs: raws.map((x) => round(x, 1)),
      overRawMs: round(median(edits.map((e, i) => e.ms - (raws[i] ?? NaN))), 1),
      listMs: round(median(edits.flatMap((e) => e.listMs)), 1),
      unchangedRestarts: sum((e) => e.unchangedRestarts),
      gapSamples: sum((e) => e.gapSamples),
      samples: sum((e) => e.samples),
      changedServerGapSamples: sum((e) => e.changedGapSamples),
      formatOnlyRestarts,
      crashReported: crashed.text,
      crashTruthful: crashed.truthful,
    };
    const leftovers = await closeRun(sys, dir);
    sys = undefined;
    ok = true;
    return { ...figures, leftovers };
  } finally {
    if (sys) await closeRun(sys, dir);
    // A failed run keeps its folder (logs, config) for a look; its processes are gone.
    if (ok && !process.env.PEER_KEEP) dir.remove();
    else opts.log(`      run folder kept for inspection: ${dir.root}`);
  }
}

/** Closes the system; returns how many of the run's processes were still alive (killed). */
async function closeRun(sys: SystemUnderTest, dir: RunDir): Promise<number> {
  await sys.close().catch(() => undefined);
  // Exits are asynchronous: give stragglers a moment before calling them leftovers.
  let left: number[] = [];
  const deadline = performance.now() + 5000;
  do {
    left = processesMentioning(dir.root);
    if (left.length === 0) return 0;
    await sleep(100);
  } while (performance.now() < deadline);
  killAll(left);
  return left.length;
}
