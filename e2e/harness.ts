/**
 * End-to-end harness for the `mcpctl` tests: a temporary HOME and workspace, the BUILT CLI
 * run as real processes, and cleanup that leaves nothing behind.
 *
 * Guarantees:
 * - Paths are found from this file's compiled location (import.meta.url), so the tests work
 *   with any build output folder (dist/, .build-*).
 * - Every child gets an environment of its own: HOME, MCPCTL_SOCKET and
 *   MCPCTL_SYSTEM_SETTINGS_PATH point into the temp dir; MCPCTL_APPROVALS_PATH,
 *   MCPCTL_SERVERS_PATH and XDG_RUNTIME_DIR of the caller are removed, so nothing outside the temp dir is read or
 *   written.
 * - `cleanup()` ends every daemon it started (SIGTERM, then SIGKILL), then every process whose
 *   command line mentions the temp dir or whose pid a test reported (whole process groups),
 *   and removes the temp dir. Call it from an after/afterEach hook.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Condition, McpServer, McpServerList } from '../api/index.js';
import { isAlive } from '../testing/processes.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';

/** The built CLI entry in this build's cli/ folder. */
export const CLI = fileURLToPath(new URL('../cli/main.js', import.meta.url));
/** The pool engineer's stdio fixture server, built into the same output folder. */
export const FIXTURE = fileURLToPath(new URL('./fixtures/stdio-server.js', import.meta.url));

const requireHere = createRequire(import.meta.url);
function packageEntry(pkg: string): string {
  return path.join(path.dirname(requireHere.resolve(`${pkg}/package.json`)), 'dist', 'index.js');
}
/** Real third-party MCP servers from the npm registry (installed as dependencies). */
export const MEMORY_SERVER = packageEntry('@modelcontextprotocol/server-memory');
export const FILESYSTEM_SERVER = packageEntry('@modelcontextprotocol/server-filesystem');

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** An SDK client connected through `mcpctl serve` (`TestEnv.serveClient`). */
export interface ServeClient {
  readonly client: Client;
  /** serve's pid (tracked for cleanup). */
  readonly pid: number;
  /** Everything serve wrote to stderr so far. (Properties: a test may take them apart.) */
  readonly stderr: () => string;
  /** Closes the client (ends serve's stdin) and waits up to 5 s for serve to exit. */
  readonly close: () => Promise<void>;
}

export interface DaemonProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves with the exit code (or null after a signal) once the daemon process is gone. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

/** The pid and working directory the stdio fixture's tool `tool` reports when called. */
export async function whereRuns(c: Client, tool: string): Promise<{ pid: number; cwd: string }> {
  const result = (await c.callTool({ name: tool, arguments: {} })) as CallToolResult;
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error(`${tool} answered ${JSON.stringify(result)}`);
  const parsed = JSON.parse(first.text) as { pid: number; cwd: string };
  return { pid: parsed.pid, cwd: parsed.cwd };
}

/** Running = exists and is not a zombie (testing/processes.ts; re-exported for the e2e tests). */
export { isAlive };

/** Pids of running processes whose command line contains `needle`. */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (cmdline.includes(needle) && isAlive(pid)) out.push(pid);
  }
  return out;
}

/**
 * Polls `client`'s tools/list (its first page, with `request` options) until `check` accepts
 * the names, sorted; resolves with them. `what` says what was awaited; a timeout adds the names
 * of the last list and, when given, serve's stderr.
 */
export function untilTools(
  client: Client,
  what: string,
  check: (names: string[]) => boolean,
  opts: { timeoutMs?: number; request?: RequestOptions; stderr?: () => string } = {},
): Promise<string[]> {
  let last: string[] = [];
  return until(
    what,
    async () => {
      last = (await client.listTools({}, opts.request)).tools.map((t) => t.name).sort();
      return check(last) ? last : undefined;
    },
    opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs },
  ).catch((err: Error) => {
    const stderr = opts.stderr ? `; serve stderr: ${opts.stderr()}` : '';
    throw new Error(`${err.message}; tools were: ${last.join(', ')}${stderr}`);
  });
}

/** What `untilObjects` polls: an McpServer or a LanguageServer object. */
export interface ServerObject {
  readonly metadata: { readonly name: string };
  readonly status: { readonly conditions: readonly Condition[]; readonly pid?: number };
}

/**
 * Polls `list` (the server objects by name) until `check` accepts them; resolves with them. A
 * rejected answer is thrown as the state seen (`name:Admitted/Ready/pid=…` under `label`),
 * which `until` reports as its last, so a timeout says `what` and where every server was.
 */
export function untilObjects<O extends ServerObject>(
  what: string,
  list: () => Promise<Map<string, O>>,
  check: (servers: Map<string, O>) => boolean,
  opts: { label: string; timeoutMs: number },
): Promise<Map<string, O>> {
  return until(
    what,
    async () => {
      const servers = await list();
      if (check(servers)) return servers;
      const seen = [...servers.values()].map(
        (s) =>
          `${s.metadata.name}:${condition(s, 'Admitted')?.reason}/${condition(s, 'Ready')?.reason}/pid=${s.status.pid}`,
      );
      throw new Error(`${opts.label}: ${seen.join(' ') || 'none'}`);
    },
    { timeoutMs: opts.timeoutMs },
  );
}

export function condition(server: ServerObject | undefined, type: string): Condition | undefined {
  return server?.status.conditions.find((c) => c.type === type);
}

export function isReady(server: McpServer | undefined): boolean {
  return condition(server, 'Ready')?.status === 'True';
}

export class TestEnv {
  readonly root: string;
  readonly home: string;
  readonly workspace: string;
  readonly socket: string;
  readonly systemSettings: string;
  readonly #daemons = new Set<DaemonProcess>();
  readonly #pids = new Set<number>();
  readonly #temp: TempDir;

  constructor() {
    // Short: a Unix socket path must fit in 107 bytes.
    this.#temp = tempDir('mcpctl-e2e-');
    this.root = this.#temp.path;
    this.home = path.join(this.root, 'home');
    this.workspace = path.join(this.root, 'ws');
    this.socket = path.join(this.root, 'run', 'mcpctl.sock');
    this.systemSettings = path.join(this.root, 'system-settings.json');
    mkdirSync(path.join(this.home, '.qwen'), { recursive: true });
    mkdirSync(this.workspace, { recursive: true });
  }

  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.MCPCTL_APPROVALS_PATH;
    delete env.MCPCTL_SERVERS_PATH;
    delete env.XDG_RUNTIME_DIR;
    delete env.MCPCTL_TEST;
    delete env.NODE_TEST_CONTEXT; // A child must not think it runs under our node:test.
    return {
      ...env,
      HOME: this.home,
      MCPCTL_SOCKET: this.socket,
      MCPCTL_SYSTEM_SETTINGS_PATH: this.systemSettings,
      MCPCTL_LOG_LEVEL: 'debug',
      ...extra,
    };
  }

  get userSettingsPath(): string {
    return path.join(this.home, '.qwen', 'settings.json');
  }

  get workspaceSettingsPath(): string {
    return path.join(this.workspace, '.qwen', 'settings.json');
  }

  get mcpJsonPath(): string {
    return path.join(this.workspace, '.mcp.json');
  }

  /** mcpctl's user server file (its folder `~/.mcpctl/` is not made). */
  get serverFilePath(): string {
    return path.join(this.home, '.mcpctl', 'mcp.json');
  }

  get approvalsPath(): string {
    return path.join(this.home, '.qwen', 'mcpApprovals.json');
  }

  /** Writes JSON (or raw text) to a file, creating its folder. */
  write(file: string, content: unknown): void {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
      file,
      typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`,
    );
  }

  /** A pid file path inside the temp dir (its presence proves a server process started). */
  pidFile(name: string): string {
    return path.join(this.root, 'pids', `${name}.pid`);
  }

  /** A stdio fixture server config; its argv mentions the temp dir, so cleanup finds it. */
  fixture(name: string, extraArgs: string[] = []): { command: string; args: string[] } {
    mkdirSync(path.join(this.root, 'pids'), { recursive: true });
    return {
      command: process.execPath,
      args: [FIXTURE, `--pid-file=${this.pidFile(name)}`, ...extraArgs],
    };
  }

  /** The real server-memory package, its data file in the temp dir. */
  memoryServer(): { command: string; args: string[]; env: Record<string, string> } {
    return {
      command: process.execPath,
      args: [MEMORY_SERVER],
      env: { MEMORY_FILE_PATH: path.join(this.root, 'memory.jsonl') },
    };
  }

  /** The real server-filesystem package, serving `dir`. */
  filesystemServer(dir: string): { command: string; args: string[] } {
    return { command: process.execPath, args: [FILESYSTEM_SERVER, dir] };
  }

  /**
   * `mcpctl serve` as an agent runs it (`--workspace`, a 50 ms debounce, `args`, this env plus
   * `extraEnv`): the SDK's stdio client transport, and everything serve writes to stderr.
   */
  serveTransport(
    opts: { workspace?: string; extraEnv?: Record<string, string>; args?: readonly string[] } = {},
  ): {
    transport: StdioClientTransport;
    stderr: () => string;
  } {
    const workspace = opts.workspace ?? this.workspace;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--workspace', workspace, '--debounce-ms', '50', ...(opts.args ?? [])],
      env: this.env(opts.extraEnv) as Record<string, string>,
      cwd: workspace,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    return { transport, stderr: () => stderr };
  }

  /**
   * An agent as Claude or Qwen runs one: an SDK client named `name` (no capabilities) on
   * `mcpctl serve` (serveTransport's options), connected, with serve's pid tracked.
   */
  async serveClient(
    opts: Parameters<TestEnv['serveTransport']>[0] & { name?: string } = {},
  ): Promise<ServeClient> {
    const { name = 'e2e-agent', ...serveOpts } = opts;
    const { transport, stderr } = this.serveTransport(serveOpts);
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid;
    assert.ok(pid, 'serve is running');
    this.trackPid(pid);
    return {
      client,
      pid,
      stderr,
      close: async () => {
        await client.close();
        await until(`serve ${pid} to exit`, () => !isAlive(pid), { timeoutMs: 5000 });
      },
    };
  }

  /** Runs the built CLI to completion. */
  cli(
    args: readonly string[],
    opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        cwd: opts.cwd ?? this.workspace,
        env: this.env(opts.env),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr });
      });
    });
  }

  /** Runs the CLI and parses its stdout as JSON; fails with its stderr when it exits non-zero. */
  async json<T>(args: readonly string[], opts: { cwd?: string } = {}): Promise<T> {
    const r = await this.cli(args, opts);
    if (r.code !== 0) throw new Error(`mcpctl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  /** `get servers -o json`, by name. */
  async servers(opts: { cwd?: string; args?: string[] } = {}): Promise<Map<string, McpServer>> {
    const list = await this.json<McpServerList>(
      ['get', 'servers', '-o', 'json', ...(opts.args ?? [])],
      opts,
    );
    return new Map(list.items.map((s) => [s.metadata.name, s]));
  }

  /**
   * Polls `get servers` until `check` accepts the map; returns it. A timeout names the servers
   * of the last answer (or the last error of `get servers`): a rejected answer is thrown as
   * the state seen, which `until` reports as its last.
   */
  untilServers(
    check: (servers: Map<string, McpServer>) => boolean,
    what: string,
    opts: { timeoutMs?: number; args?: string[] } = {},
  ): Promise<Map<string, McpServer>> {
    return untilObjects(what, () => this.servers(opts.args ? { args: opts.args } : {}), check, {
      label: 'servers',
      timeoutMs: opts.timeoutMs ?? 20_000,
    });
  }

  /** Spawns a long-running CLI (e.g. `get --watch`); the caller ends it. */
  spawnCli(
    args: readonly string[],
    opts: { cwd?: string } = {},
  ): ChildProcess & { output(): string } {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd ?? this.workspace,
      env: this.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    this.trackPid(child.pid);
    return Object.assign(child, { output: () => out });
  }

  /**
   * Starts `mcpctl daemon` (workspace, debounce 50 ms, drain 0 and idle stop 0 unless `args`
   * say otherwise)
   * with `opts.env` over the test environment, and resolves once it answers on its socket.
   */
  async startDaemon(
    args: readonly string[] = [],
    opts: { env?: Record<string, string> } = {},
  ): Promise<DaemonProcess> {
    const all = [
      'daemon',
      '--workspace',
      this.workspace,
      '--debounce-ms',
      '50',
      '--drain-delay-ms',
      '0',
      // The tests written before issue #34 start every server at once, as mcpctl then did;
      // e2e/zero-start (and any test that passes --idle-stop) tests the on-demand default.
      ...(args.includes('--idle-stop') ? [] : ['--idle-stop', '0']),
      ...args,
    ];
    const daemon = this.spawnDaemon(all, opts);
    await until(
      'the daemon to answer',
      async () => {
        const exited = daemon.child.exitCode !== null || daemon.child.signalCode !== null;
        if (exited) throw new Error(`daemon exited early: ${daemon.stderr()}`);
        const r = await this.cli(['get', 'sessions', '-o', 'name']);
        return r.code === 0;
      },
      { timeoutMs: 20_000 },
    );
    return daemon;
  }

  /** Spawns the daemon without waiting for it (for start-up failure tests). */
  spawnDaemon(args: readonly string[], opts: { env?: Record<string, string> } = {}): DaemonProcess {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: this.workspace,
      env: this.env(opts.env),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    const d: DaemonProcess = { child, pid: child.pid ?? -1, exited, stderr: () => stderr };
    this.#daemons.add(d);
    return d;
  }

  /**
   * Stops the daemon (`mcpctl stop`, as a user would), waits up to 10 s for every process
   * named after this env's socket to end, and kills the ones left; resolves with the stop
   * command's exit code. Safe to call when no daemon runs, and twice.
   */
  async stopDaemon(): Promise<number | null> {
    const stop = await this.cli(['stop'], { timeoutMs: 30_000 });
    const daemons = () => processesMentioning(this.socket);
    try {
      await until('the daemon to end', () => daemons().length === 0, { timeoutMs: 10_000 });
    } catch {
      for (const pid of daemons()) process.kill(pid, 'SIGKILL');
    }
    return stop.code;
  }

  /** Remember a pid to kill (its whole group) at cleanup, should the test leave it. */
  trackPid(pid: number | undefined): void {
    if (pid !== undefined && pid > 1) this.#pids.add(pid);
  }

  async cleanup(): Promise<void> {
    for (const d of this.#daemons) {
      if (d.child.exitCode === null && d.child.signalCode === null) {
        d.child.kill('SIGTERM');
        // A daemon that does not stop gracefully in time is killed. (Cleared afterwards: a
        // pending timer would keep the test process alive.)
        const force = setTimeout(() => d.child.kill('SIGKILL'), 10_000);
        await d.exited;
        clearTimeout(force);
      }
    }
    const leftovers = new Set([...this.#pids, ...processesMentioning(this.root)]);
    for (const pid of leftovers) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
    this.#temp.remove();
  }
}
