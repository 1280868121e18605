/**
 * Figure 5, pool sharing: 10 sessions × the same 5 stdio servers. Counts the server processes
 * that really run (from /proc, not from the pool's own bookkeeping) with the shared pool and
 * without it (a pool per session), and the daemon's RSS in both; see pool-child.ts.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fixtureConfig } from '../pool/testing/fixtures.js';
import { processesMentioning, rssMb } from './processes.js';
import { round } from './stats.js';
import { benchDir } from './temp.js';

export const POOL_SESSIONS = 10;
export const POOL_SERVERS = 5;

const CHILD = fileURLToPath(new URL('./pool-child.js', import.meta.url));

export interface PoolRun {
  readonly processes: number;
  readonly daemonRssMb: number;
  /** RSS of all the server processes together. */
  readonly serversRssMb: number;
  /** Ready servers per session, as the daemon saw them. */
  readonly ready: readonly number[];
  readonly startMs: number;
}

async function run(mode: 'pooled' | 'unpooled'): Promise<PoolRun> {
  const dir = benchDir(`pool-${mode}`);
  const mcpServers = Object.fromEntries(
    Array.from({ length: POOL_SERVERS }, (_, i) => [
      `srv${i}`,
      // The pid-file path puts the bench folder in each server's command line (found in /proc).
      fixtureConfig([`--tools=t${i}`, `--pid-file=${join(dir.root, `srv${i}.pid`)}`], {
        // 50 node processes starting at once on 2 cores are slow; this figure is not about that.
        discoveryTimeoutMs: 180_000,
        // One place for every workspace: only a server that runs in the same folder is shared.
        cwd: dir.root,
      }),
    ]),
  );
  dir.write(dir.userSettings, { mcpServers });
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--expose-gc', CHILD, mode, dir.root, String(POOL_SESSIONS), String(POOL_SERVERS)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  try {
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`pool ${mode}: no report in 240 s`)),
        240_000,
      );
      lines.once('line', (line) => {
        clearTimeout(timer);
        resolve(line);
      });
      void exited.then((code) => reject(new Error(`pool ${mode}: child exited with ${code}`)));
    });
    lines.close();
    const report = JSON.parse(first) as { pid: number; ready: number[] };
    const startMs = performance.now() - started;
    const servers = processesMentioning(dir.root).filter((pid) => pid !== child.pid);
    const result: PoolRun = {
      processes: servers.length,
      daemonRssMb: round(rssMb(child.pid ?? -1), 1),
      serversRssMb: round(
        servers.reduce((sum, pid) => sum + rssMb(pid), 0),
        1,
      ),
      ready: report.ready,
      startMs: Math.round(startMs),
    };
    child.stdin.end('stop\n');
    const code = await exited;
    if (code !== 0) throw new Error(`pool ${mode}: child exited with ${code}`);
    return result;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    dir.remove();
  }
}

export interface PoolFigure {
  readonly sessions: number;
  readonly servers: number;
  readonly processes: number;
  readonly unpooledProcesses: number;
  readonly daemonRssMb: number;
}

export async function poolFigure(): Promise<{
  figure: PoolFigure;
  detail: { pooled: PoolRun; unpooled: PoolRun };
}> {
  const pooled = await run('pooled');
  const unpooled = await run('unpooled');
  return {
    figure: {
      sessions: POOL_SESSIONS,
      servers: POOL_SERVERS,
      processes: pooled.processes,
      unpooledProcesses: unpooled.processes,
      daemonRssMb: pooled.daemonRssMb,
    },
    detail: { pooled, unpooled },
  };
}
