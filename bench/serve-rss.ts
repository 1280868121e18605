/**
 * The serve figure (issue #37): what an idle `mcpctl serve` costs, the process every agent keeps
 * for its whole session, in the same run as its floor and as the same program from its modules.
 *
 * - serve: `mcpctl serve` as an agent starts it (main.js, which runs the bundle the build makes,
 *   scripts/bundle-serve.mjs), initialized through one daemon, then idle; its RSS.
 * - modules: the same serve program loaded from its modules (cli/serve-program.js): what the
 *   bundle saves.
 * - whole program: serve run by the whole command line (cli/program.js, every command), as
 *   every serve ran before issue 37.
 * - floor: a bare node reading its stdin, what no pipe in node can be below.
 * Each is the median of ROUNDS processes, read after IDLE_MS. Goal: serve ≤ 45 MiB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { MCPCTL, mcpctlEnv } from './peer/mcpctl.js';
import { sleep } from './peer/system.js';
import { rssMb } from './processes.js';
import { median, round } from './stats.js';
import { benchDir, type BenchDir } from './temp.js';

export const GOAL_SERVE_RSS_MB = 45;
const ROUNDS = 5;
const IDLE_MS = 1500;

export interface ServeRssFigure {
  readonly serveMb: number;
  readonly modulesMb: number;
  readonly wholeProgramMb: number;
  readonly floorMb: number;
  readonly goal: { readonly serveMb: number; readonly met: boolean };
}

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'mcpctl-serve-bench', version: '0.0.0' },
  },
})}\n`;

/** A program module's `run`, started as main.js starts it. */
const started = (module: string) =>
  `const { run } = await import(${JSON.stringify(new URL(module, import.meta.url).href)}); process.exitCode = (await run(process.argv)).code;`;
const FROM_MODULES = started('../cli/serve-program.js');
const WHOLE_PROGRAM = started('../cli/program.js');

async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exit;
}

/** One serve (or floor) process: initialized (answered), idle, its RSS; then ended. */
async function idleRss(
  dir: BenchDir,
  argv: readonly string[],
  initialize: boolean,
): Promise<number> {
  const child = spawn(process.execPath, argv, {
    env: mcpctlEnv(dir),
    stdio: ['pipe', 'pipe', 'ignore'],
    cwd: dir.workspace,
  });
  try {
    if (initialize) {
      const answered = new Promise<void>((resolve, reject) => {
        child.stdout?.on('data', (c: Buffer) => {
          if (c.toString().includes('"id":1')) resolve();
        });
        child.once('exit', () => reject(new Error('serve exited before it answered')));
      });
      child.stdin?.write(INITIALIZE);
      await answered;
    } else child.stdout?.resume();
    await sleep(IDLE_MS);
    return rssMb(child.pid ?? -1);
  } finally {
    await ended(child);
  }
}

const serveArgs = (dir: BenchDir) => ['serve', '--workspace', dir.workspace];

export async function serveRssFigure(say: (line: string) => void): Promise<ServeRssFigure> {
  const dir = benchDir('serve');
  const daemon = spawn(process.execPath, [MCPCTL, 'daemon', '--workspace', dir.workspace], {
    env: mcpctlEnv(dir),
    stdio: 'ignore',
  });
  try {
    // The first serve waits for the daemon to answer; it is not counted.
    await idleRss(dir, [MCPCTL, ...serveArgs(dir)], true);
    const serve: number[] = [];
    const modules: number[] = [];
    const whole: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      serve.push(await idleRss(dir, [MCPCTL, ...serveArgs(dir)], true));
      modules.push(
        await idleRss(
          dir,
          ['--input-type=module', '-e', FROM_MODULES, 'mcpctl', ...serveArgs(dir)],
          true,
        ),
      );
      whole.push(
        await idleRss(
          dir,
          ['--input-type=module', '-e', WHOLE_PROGRAM, 'mcpctl', ...serveArgs(dir)],
          true,
        ),
      );
      floor.push(await idleRss(dir, ['-e', 'process.stdin.resume()'], false));
    }
    const serveMb = round(median(serve), 1);
    say(
      `    serve ${serveMb} MiB, from modules ${round(median(modules), 1)} MiB, whole program ${round(median(whole), 1)} MiB, bare node ${round(median(floor), 1)} MiB`,
    );
    return {
      serveMb,
      modulesMb: round(median(modules), 1),
      wholeProgramMb: round(median(whole), 1),
      floorMb: round(median(floor), 1),
      goal: { serveMb: GOAL_SERVE_RSS_MB, met: serveMb <= GOAL_SERVE_RSS_MB },
    };
  } finally {
    await ended(daemon);
    dir.remove();
  }
}

export function serveRssLines(f: ServeRssFigure): string[] {
  return [
    '',
    `10 serve: an idle mcpctl serve (initialized, through one daemon), median of ${ROUNDS}`,
    `    serve ${f.serveMb} MiB (goal ≤ ${f.goal.serveMb}: ${f.goal.met ? 'met' : 'missed'}); the same program from its modules ${f.modulesMb} MiB (${round(f.serveMb / f.modulesMb, 2)}×), the whole command line as before ${f.wholeProgramMb} MiB (${round(f.serveMb / f.wholeProgramMb, 2)}×); floor, a bare node reading stdin ${f.floorMb} MiB (serve − floor ${round(f.serveMb - f.floorMb, 1)} MiB)`,
  ];
}
