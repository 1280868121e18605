/**
 * Figure 2, scale: N servers on in-memory transports in one user settings file. One server is
 * edited → exactly one connect and one disconnect, and the controller CPU time of that reload;
 * a theme-only edit → no reconcile at all.
 *
 * What the CPU figure counts (process.cpuUsage of this process, which is the controller):
 * everything from the moment the edited file is on disk until the session is settled on the
 * new connection — the watcher event, the debounce timer, reading, parsing and validating the
 * file, assembling and diffing the desired set, the queue, the reconcile, the in-memory connect
 * of the one changed server (its client and server side both run here) and the release of the
 * old one. The debounce wait itself is idle time and costs no CPU, so including the window is
 * honest. Not counted: producing the file (JSON.stringify and the write are the editor's work).
 * The split at the store's change event tells informer work (read … diff) from reconcile work.
 *
 * One warm-up edit runs first and is not counted (JIT compilation of the edit path is a cost
 * paid once per daemon, not per reload); the figure is the median of the counted edits.
 */
import { Session as InspectorSession } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { connectionIdOf, type McpServerConfig } from '../api/index.js';
import { createSessionStore, createSharedSources } from '../informers/index.js';
import type { SessionStore } from '../informers/types.js';
import { createPool } from '../pool/index.js';
import { inMemoryConnector } from '../pool/testing/in-memory.js';
import { SpyPool } from '../controller/testing/harness.js';
import { mergeProfiles, type CpuProfile } from './profile-summary.js';
import { benchSession, whenReadyOn } from './session-kit.js';
import { cpuMsSince, median, round } from './stats.js';
import { benchDir } from './temp.js';

export interface ScaleRow {
  readonly servers: number;
  readonly connects: number;
  readonly disconnects: number;
  readonly cpuMs: number;
  readonly themeEditReconciles: number;
}

export interface ScaleDetail {
  /** CPU of the counted edits, in order. */
  readonly cpuSamples: readonly number[];
  /** Median CPU up to the store's change event (watch, read, parse, validate, assemble, diff). */
  readonly informerCpuMs: number;
  /** Median CPU after it (queue, reconcile, connect, release). */
  readonly reconcileCpuMs: number;
  /** CPU of the theme-only edit (read, parse, validate, find nothing to do). */
  readonly themeCpuMs: number;
  /** Wall time until all N servers were Ready at start. */
  readonly startupMs: number;
  readonly fileKb: number;
  /** Connects/disconnects of the theme edit (must be 0). */
  readonly themeConnects: number;
}

export interface ScaleOptions {
  /** Counted edits after the warm-up. */
  readonly edits?: number;
  /** Write a V8 CPU profile of PROFILED_EDITS extra, uncounted edits here. */
  readonly profileFile?: string;
}

const DEBOUNCE_MS = 300;
const PROFILED_EDITS = 5;

function config(i: number, version: number): McpServerConfig {
  return { command: 'mem', args: [`s${i}`, `v${version}`] };
}

function settingsText(
  n: number,
  versions: ReadonlyMap<number, number>,
  extra: object = {},
): string {
  const mcpServers: Record<string, McpServerConfig> = {};
  for (let i = 0; i < n; i++) mcpServers[`s${i}`] = config(i, versions.get(i) ?? 0);
  return JSON.stringify({ mcpServers, ...extra }, null, 2);
}

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Brings the process to rest before a measurement: collects the garbage setup left (needs
 * --expose-gc), then waits until the process really idles. A forced full GC of a large heap
 * leaves V8 sweeping and compacting on helper threads for a few hundred ms afterwards (about
 * 250 ms of CPU at N = 10 000), which would otherwise be billed to the reload that follows.
 */
async function quiesce(): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  for (let i = 0; i < 60; i++) {
    const before = process.cpuUsage();
    await idle(100);
    if (cpuMsSince(before) < 2) return;
  }
}

function post(session: InspectorSession, method: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    session.post(method, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

export async function scaleRow(
  n: number,
  options: ScaleOptions = {},
): Promise<{ row: ScaleRow; detail: ScaleDetail }> {
  const edits = options.edits ?? 5;
  const dir = benchDir(`scale${n}`);
  const versions = new Map<number, number>();
  dir.write(dir.userSettings, settingsText(n, versions));
  const fileKb = Math.round(settingsText(n, versions).length / 1024);

  const mem = inMemoryConnector(() => {
    const server = new McpServer({ name: 'scale', version: '1.0.0' });
    server.registerTool('t', {}, () => ({ content: [] }));
    return server;
  });
  const pool = new SpyPool(createPool({ connector: mem.connector, drainDelayMs: 0 }));
  // The shared sources are ours, so we can watch the very FileSource the store reads (onRead).
  const sources = createSharedSources({ debounceMs: DEBOUNCE_MS });
  const userSource = sources.settings(dir.userSettings);
  let emitted: NodeJS.CpuUsage | undefined;
  const storeFactory = (o: Parameters<typeof createSessionStore>[0]): SessionStore => {
    const store = createSessionStore({ ...o, sharedSources: sources });
    const onChange = store.onChange.bind(store);
    return {
      ...store,
      // The store's change event ends the informer's share of the work.
      onChange: (listener) =>
        onChange((change) => {
          emitted = process.cpuUsage();
          listener(change);
        }),
    };
  };

  const started = performance.now();
  const session = await benchSession(dir, pool, { debounceMs: DEBOUNCE_MS, storeFactory });
  try {
    await session.settled();
    const startupMs = performance.now() - started;
    if (pool.acquired.length !== n)
      throw new Error(`start: ${pool.acquired.length} of ${n} connected`);

    type Sample = { total: number; informer: number; connects: number; disconnects: number };
    let editCount = 0;
    /**
     * Edits one server (a different one each time) and measures until it is Ready on its new
     * spec; `window` runs around exactly the measured part (used to profile it).
     */
    const editOne = async (window?: {
      open(): Promise<void>;
      close(): Promise<void>;
    }): Promise<Sample> => {
      const k = (editCount++ * 7919) % n;
      versions.set(k, (versions.get(k) ?? 0) + 1);
      const name = `s${k}`;
      const ready = whenReadyOn(
        session,
        name,
        connectionIdOf(name, config(k, versions.get(k) ?? 0), session.workspace),
      );
      const text = settingsText(n, versions);
      await quiesce();
      const acquired = pool.acquired.length;
      const released = pool.released.length;
      emitted = undefined;
      writeFileSync(dir.userSettings, text);
      await window?.open();
      const cpu0 = process.cpuUsage();
      await ready;
      await session.settled();
      const total = cpuMsSince(cpu0);
      const informer = emitted === undefined ? NaN : cpuMsSince(cpu0) - cpuMsSince(emitted);
      await window?.close();
      return {
        total,
        informer,
        connects: pool.acquired.length - acquired,
        disconnects: pool.released.length - released,
      };
    };

    await editOne(); // warm-up, not counted
    const samples: Sample[] = [];
    for (let rep = 0; rep < edits; rep++) samples.push(await editOne());
    if (options.profileFile !== undefined) {
      // Several edits, one profile each, merged: at 1 ms sampling one edit is too few samples
      // to rank, and profiling across edits would also catch the forced GC between them.
      const inspector = new InspectorSession();
      inspector.connect();
      await post(inspector, 'Profiler.enable');
      const profiles: CpuProfile[] = [];
      const window = {
        open: async () => {
          await post(inspector, 'Profiler.start');
        },
        close: async () => {
          const { profile } = (await post(inspector, 'Profiler.stop')) as { profile: CpuProfile };
          profiles.push(profile);
        },
      };
      for (let rep = 0; rep < PROFILED_EDITS; rep++) await editOne(window);
      writeFileSync(options.profileFile, JSON.stringify(mergeProfiles(profiles)));
      inspector.disconnect();
    }

    // Theme-only: read, parse, validate, and then nothing.
    let reconciles = 0;
    const off = session.on('change', (name) => {
      if (name !== undefined) reconciles++;
    });
    const read = new Promise<void>((resolve) => {
      const stop = userSource.source.onRead(() => {
        stop();
        resolve();
      });
    });
    const text = settingsText(n, versions, { ui: { theme: 'dark' } });
    await quiesce();
    const acquired = pool.acquired.length + pool.released.length;
    writeFileSync(dir.userSettings, text);
    const cpu0 = process.cpuUsage();
    await read;
    await session.settled();
    const themeCpuMs = cpuMsSince(cpu0);
    off();

    const worst = (f: (s: (typeof samples)[number]) => number) =>
      samples.map(f).find((x) => x !== 1) ?? 1;
    return {
      row: {
        servers: n,
        // Every counted edit must be exactly 1 and 1; a deviation is reported, not averaged away.
        connects: worst((s) => s.connects),
        disconnects: worst((s) => s.disconnects),
        cpuMs: round(median(samples.map((s) => s.total)), 1),
        themeEditReconciles: reconciles,
      },
      detail: {
        cpuSamples: samples.map((s) => round(s.total, 1)),
        informerCpuMs: round(median(samples.map((s) => s.informer)), 1),
        reconcileCpuMs: round(median(samples.map((s) => s.total - s.informer)), 1),
        themeCpuMs: round(themeCpuMs, 1),
        startupMs: Math.round(startupMs),
        fileKb,
        themeConnects: pool.acquired.length + pool.released.length - acquired,
      },
    };
  } finally {
    await session.close();
    await userSource.release();
    await sources.close();
    await pool.close();
    dir.remove();
  }
}
