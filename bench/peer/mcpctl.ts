/**
 * mcpctl as a system under test: the built `mcpctl serve` spawned by the SDK's
 * StdioClientTransport, as an agent would run it, with a temporary HOME and socket.
 *
 * The servers are configured in that HOME's ~/.qwen/settings.json (user scope: never gated, the
 * file users edit most), with exactly the content mcp-hub gets in its config file. serve finds
 * no daemon at MCPCTL_SOCKET and starts one at its defaults; the status the bench
 * reads is `mcpctl get servers NAME -o json` (Ready condition), and the run ends with the
 * client going away and `mcpctl stop`, which returns once every server process has ended.
 */
import { execFile } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BASE_TOOL, writePretty, type Fleet } from './fleet.js';
import { ToolProbe } from './probe.js';
import {
  benchEnv,
  qualified,
  type ReportedStatus,
  type RunDir,
  type SystemKind,
  type SystemUnderTest,
} from './system.js';
import { until } from '../../testing/until.js';

const run = promisify(execFile);

/** The built CLI, next to this build as bench/peer is. */
export const MCPCTL = fileURLToPath(new URL('../../cli/main.js', import.meta.url));
const START_TIMEOUT_MS = 180_000;

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/** The environment of every mcpctl process of a run: its HOME, socket, no system settings. */
export function mcpctlEnv(dir: RunDir): Record<string, string> {
  const env = benchEnv();
  // Anything of the machine's own mcpctl setup would leak into the run.
  delete env.MCPCTL_APPROVALS_PATH;
  delete env.XDG_RUNTIME_DIR;
  env.HOME = dir.home;
  env.MCPCTL_SOCKET = socketOf(dir);
  env.MCPCTL_SYSTEM_SETTINGS_PATH = join(dir.root, 'no-system-settings.json');
  return env;
}

export function socketOf(dir: RunDir): string {
  return join(dir.root, 'run', 'mcpctl.sock');
}

/** `mcpctl ARGS` in the run's environment; stdout. */
export async function mcpctl(dir: RunDir, args: readonly string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [MCPCTL, ...args], {
    env: mcpctlEnv(dir),
    cwd: dir.workspace,
    timeout: 130_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** mcpctl at its defaults: the peer bench compares defaults with defaults (issue 17). */
export function mcpctlAt(): SystemKind {
  return {
    key: 'mcpctl',
    label: 'mcpctl (defaults)',
    start: (f, dir, initial) => start(f, dir, initial),
  };
}

async function start(f: Fleet, dir: RunDir, initial: unknown): Promise<SystemUnderTest> {
  const configFile = join(dir.home, '.qwen', 'settings.json');
  mkdirSync(join(dir.home, '.qwen'), { recursive: true });
  mkdirSync(join(dir.root, 'run'), { recursive: true, mode: 0o700 });
  writePretty(configFile, initial);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCPCTL, 'serve', '--workspace', dir.workspace],
    env: mcpctlEnv(dir),
    cwd: dir.workspace,
    stderr: 'pipe',
  });
  transport.stderr?.pipe(createWriteStream(join(dir.root, 'serve.log')));
  const client = new Client({ name: 'mcpctl-peer-bench', version: '0.0.0' }, { capabilities: {} });
  const stop = async (): Promise<void> => {
    await client.close().catch(() => undefined);
    // The daemon serve started outlives serve by design; stop returns once its servers ended.
    await mcpctl(dir, ['stop']).catch(() => undefined);
  };
  try {
    await client.connect(transport);
    const probe = new ToolProbe(client);
    const all = f.names.map((n) => qualified(n, BASE_TOOL));
    await until(
      'mcpctl serve to list every server tool',
      async () => {
        const s = await probe.sample();
        return all.every((t) => s.tools.has(t)) ? true : undefined;
      },
      { timeoutMs: START_TIMEOUT_MS, intervalMs: 100 },
    );
    return {
      configFile,
      probe,
      async status(server: string): Promise<ReportedStatus> {
        const out = await mcpctl(dir, [
          'get',
          'servers',
          server,
          '-o',
          'json',
          '--workspace',
          dir.workspace,
        ]);
        const obj = JSON.parse(out) as { status?: { conditions?: Condition[] } };
        const ready = obj.status?.conditions?.find((c) => c.type === 'Ready');
        if (!ready) return { connected: false, text: 'no Ready condition' };
        const message = ready.message ? ` "${ready.message}"` : '';
        return {
          connected: ready.status === 'True',
          text: `Ready=${ready.status} ${ready.reason ?? ''}${message}`,
        };
      },
      close: stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
