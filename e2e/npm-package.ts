/**
 * npm as a user runs it, for the package test: pack this repository as it is built, and install
 * a tarball globally into a prefix of the test's own.
 *
 * Guarantees:
 * - `pack` never builds: it passes `--ignore-scripts`, so `prepack` (a clean build) does not
 *   rewrite the dist/ that other tests run from at the same time; it packs what is built.
 * - `install` takes what it can from the machine's npm cache (`--prefer-offline`: the packages
 *   `npm ci` fetched, and the registry's package lists from an earlier run), and the registry
 *   only for what is missing. npm's HOME is the test's; it reads the machine's cache and user
 *   config by explicit path, writes no log file (`--logs-max=0`) and no global file outside
 *   the prefix.
 * - npm's own lifecycle variables (an `npm test` run's prefix and package) are not passed on:
 *   they would point the install at this repository.
 * - Every npm run is killed after `timeoutMs`; a non-zero exit throws with npm's stderr.
 */
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import path from 'node:path';

export interface NpmResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** One line of `npm pack --json`: the tarball and what it holds. */
export interface PackResult {
  readonly filename: string;
  /** Bytes of the .tgz. */
  readonly size: number;
  /** Bytes of the files it holds. */
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly {
    readonly path: string;
    readonly size: number;
    readonly mode: number;
  }[];
}

const LIFECYCLE_VARIABLE =
  /^npm_(package_|lifecycle_|config_(prefix|global|global_prefix|local_prefix|cache|userconfig)$)/i;

function npmCommand(): { command: string; prefixArgs: string[] } {
  // Under `npm test` the npm that runs us; else the one on PATH.
  const execPath = process.env.npm_execpath;
  if (execPath !== undefined && /npm-cli\.js$/.test(execPath))
    return { command: process.execPath, prefixArgs: [execPath] };
  return { command: 'npm', prefixArgs: [] };
}

/** The environment npm runs in: HOME is `home`; cache and user config stay the machine's. */
export async function npmEnv(home: string): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!LIFECYCLE_VARIABLE.test(key)) env[key] = value;
  delete env.NODE_TEST_CONTEXT;
  delete env.MCPCTL_TEST;
  const userconfig = process.env.npm_config_userconfig ?? path.join(homedir(), '.npmrc');
  // The cache the machine's npm uses (the one `npm ci` filled), asked of npm itself: a user
  // config may move it.
  const cache =
    process.env.npm_config_cache ??
    (await npm(['config', 'get', 'cache'], { cwd: home, env, timeoutMs: 30_000 })).stdout.trim();
  return {
    ...env,
    HOME: home,
    npm_config_cache: cache,
    npm_config_userconfig: userconfig,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_logs_max: '0',
  };
}

export function npm(
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<NpmResult> {
  const { command, prefixArgs } = npmCommand();
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefixArgs, ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      if (code === 0) resolve({ stdout, stderr, ms });
      else
        reject(
          new Error(`npm ${args.join(' ')} ended ${code ?? signal} after ${ms} ms: ${stderr}`),
        );
    });
  });
}

/** `npm pack` of the package in `root` (as built, no scripts) into `destination`. */
export async function pack(
  root: string,
  destination: string,
  env: NodeJS.ProcessEnv,
  opts: { dryRun?: boolean } = {},
): Promise<PackResult> {
  const args = ['pack', '--ignore-scripts', '--json', '--pack-destination', destination];
  if (opts.dryRun === true) args.push('--dry-run');
  const { stdout } = await npm(args, { cwd: root, env, timeoutMs: 60_000 });
  const [result] = JSON.parse(stdout) as PackResult[];
  if (result === undefined) throw new Error(`npm pack printed no package: ${stdout}`);
  return result;
}

/** `npm install --global` of `tarball` into `prefix`; resolves with how long it took. */
export async function installGlobal(
  tarball: string,
  prefix: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const args = ['install', '--global', '--prefix', prefix, '--prefer-offline', tarball];
  const { ms } = await npm(args, { cwd: prefix, env, timeoutMs: 120_000 });
  return ms;
}
