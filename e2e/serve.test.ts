/**
 * e2e: `mcpctl serve` as an agent runs it — a real MCP client (the SDK's Client) spawning the
 * BUILT CLI over stdio, with a temp HOME, MCPCTL_SOCKET in the temp dir and real servers
 * (the stdio fixture, @modelcontextprotocol/server-everything and server-filesystem).
 *
 * Each daemon-mode test lets serve start its daemon and stops it before it ends (`mcpctl stop`,
 * SIGKILL as the fallback); TestEnv.cleanup then ends whatever else mentions the temp dir.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  JSONRPCMessageSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { SessionList } from '../cli/objects.js';
import { connectClient } from '../cli/rpc/client.js';
import { CLI, TestEnv, isAlive, isReady, processesMentioning, untilTools } from './harness.js';
import { until } from '../testing/until.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 60_000 };
const requireHere = createRequire(import.meta.url);
const EVERYTHING_SERVER = path.join(
  path.dirname(requireHere.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** How long a client may take to close serve: below the SDK's 2 s grace before SIGTERM. */
const PROMPT_EXIT_MS = 1500;

type Decide = (serverName: string) => 'approve' | 'approve-session' | 'reject';

interface Agent {
  readonly client: Client;
  readonly pid: number;
  /** Notifications/tools/list_changed received so far. */
  listChanged(): number;
  /** Transport errors: a stdout line that is not a JSON-RPC message lands here. */
  readonly errors: Error[];
  stderr(): string;
  toolNames(): Promise<string[]>;
  /** Closes the client (ends serve's stdin); resolves with how long that took. */
  close(): Promise<number>;
}

/**
 * A transport that spawns serve itself and keeps every stdout line, so a test can check that
 * nothing but JSON-RPC ever appears there.
 */
class TeeTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly lines: string[] = [];
  stderr = '';
  child: ChildProcessWithoutNullStreams | undefined;
  exited: Promise<number | null> = Promise.resolve(null);
  #partial = '';

  constructor(
    private readonly args: readonly string[],
    private readonly env: TestEnv,
  ) {}

  start(): Promise<void> {
    const child = spawn(process.execPath, [CLI, ...this.args], {
      cwd: this.env.workspace,
      env: this.env.env(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.env.trackPid(child.pid);
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      const parts = (this.#partial + c.toString()).split('\n');
      this.#partial = parts.pop() ?? '';
      for (const line of parts) {
        this.lines.push(line);
        try {
          this.onmessage?.(JSONRPCMessageSchema.parse(JSON.parse(line)));
        } catch (err) {
          this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        }
      }
    });
    child.on('close', () => this.onclose?.());
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', reject);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.child?.stdin.write(`${JSON.stringify(message)}\n`);
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.child?.stdin.end();
    await this.exited;
  }

  /** Every stdout line so far, checked: each one is a JSON-RPC 2.0 message, nothing else. */
  assertOnlyJsonRpc(): void {
    assert.equal(this.#partial, '', 'stdout ends with a whole line');
    assert.ok(this.lines.length > 0, 'serve wrote MCP messages');
    for (const line of this.lines) {
      const parsed = JSONRPCMessageSchema.safeParse(JSON.parse(line));
      assert.ok(parsed.success, `stdout line is not JSON-RPC: ${line}`);
    }
  }
}

async function connectAgent(
  env: TestEnv,
  serveArgs: readonly string[],
  opts: { decide?: Decide; tee?: TeeTransport } = {},
): Promise<Agent> {
  const serve = opts.tee === undefined ? env.serveTransport({ args: serveArgs }) : undefined;
  const stdio = opts.tee ?? serve!.transport;
  const client = new Client(
    { name: 'e2e-agent', version: '1.0.0' },
    { capabilities: opts.decide ? { elicitation: {} } : {} },
  );
  const errors: Error[] = [];
  client.onerror = (err) => errors.push(err);
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged += 1;
  });
  const decide = opts.decide;
  if (decide)
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const name = /MCP server "([^"]+)"/.exec(request.params.message)?.[1] ?? '';
      return { action: 'accept' as const, content: { decision: decide(name) } };
    });
  await client.connect(stdio);
  const pid = stdio instanceof StdioClientTransport ? stdio.pid : (opts.tee?.child?.pid ?? null);
  assert.ok(pid, 'serve is running');
  env.trackPid(pid);
  return {
    client,
    pid,
    listChanged: () => listChanged,
    errors,
    stderr: () => (opts.tee ? opts.tee.stderr : (serve?.stderr() ?? '')),
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
    async close() {
      const started = Date.now();
      await client.close();
      await until(`serve (pid ${pid}) to exit`, () => !isAlive(pid), { timeoutMs: 5000 });
      return Date.now() - started;
    },
  };
}

/** Polls the agent's tool list until `check` accepts it (the harness' untilTools, 20 s). */
function untilAgentTools(agent: Agent, check: (names: string[]) => boolean, what: string) {
  return untilTools(agent.client, what, check, { timeoutMs: 20_000, stderr: () => agent.stderr() });
}

/**
 * `mcpctl serve` as an entry of the config files mcpctl watches, as a Qwen Code user would
 * have it in ~/.qwen/settings.json (the agent runs it; mcpctl reads the same file).
 */
function selfEntry(env: TestEnv): { command: string; args: string[] } {
  return { command: process.execPath, args: [CLI, 'serve', '--workspace', env.workspace] };
}

/** Running processes started from selfEntry(). */
function selfServes(env: TestEnv): number[] {
  const wanted = [process.execPath, ...selfEntry(env).args].join('\0');
  return processesMentioning(env.workspace).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '') === wanted;
    } catch {
      return false; // Gone meanwhile.
    }
  });
}

/** The pid a fixture tool reports in its answer. */
async function pidFromTool(agent: Agent, tool: string): Promise<number> {
  const answer = JSON.parse(textOf(await agent.client.callTool({ name: tool, arguments: {} }))) as {
    pid: number;
  };
  return answer.pid;
}

describe('mcpctl serve (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'starts a daemon and serves a fixture, server-everything and server-filesystem; stdout is only JSON-RPC',
    T,
    async () => {
      const files = path.join(env.root, 'files');
      mkdirSync(files);
      const note = path.join(realpathSync(files), 'note.txt');
      writeFileSync(note, 'hello from a temp dir\n');
      env.write(env.userSettingsPath, {
        mcpServers: {
          fx: env.fixture('fx', ['--tools=echo']),
          everything: { command: process.execPath, args: [EVERYTHING_SERVER] },
          files: env.filesystemServer(files),
          // The agent's own entry, in a file mcpctl reads too (Qwen Code's settings.json).
          self: selfEntry(env),
        },
      });
      const tee = new TeeTransport(
        ['serve', '--workspace', env.workspace, '--debounce-ms', '50'],
        env,
      );
      const agent = await connectAgent(env, [], { tee });
      try {
        await untilAgentTools(
          agent,
          (n) =>
            n.includes('fx__echo') &&
            n.includes('everything__echo') &&
            n.includes('files__read_text_file'),
          'tools of all three servers',
        );
        const echo = await agent.client.callTool({
          name: 'everything__echo',
          arguments: { message: 'hi there' },
        });
        assert.equal(textOf(echo), 'Echo: hi there');
        const read = await agent.client.callTool({
          name: 'files__read_text_file',
          arguments: { path: note },
        });
        assert.equal((read as CallToolResult).isError ?? false, false, textOf(read));
        assert.match(textOf(read), /hello from a temp dir/);
        assert.ok(!(await agent.toolNames()).some((n) => n.startsWith('self__')));
        const servers = await env.untilServers((m) => isReady(m.get('self')), 'self Ready');
        assert.deepEqual(servers.get('self')?.status.tools, [], 'mcpctl does not proxy itself');
        assert.ok(!(await agent.toolNames()).some((n) => n.startsWith('self__')));
        const fixturePid = await pidFromTool(agent, 'fx__echo');
        assert.equal(Number(readFileSync(env.pidFile('fx'), 'utf8')), fixturePid);

        assert.ok(existsSync(path.join(path.dirname(env.socket), 'mcpctl-daemon.log')));
        assert.match(agent.stderr(), /started an mcpctl daemon/);
        const exitMs = await agent.close();
        assert.ok(exitMs < PROMPT_EXIT_MS, `serve took ${exitMs} ms to exit after stdin ended`);
        assert.equal(await tee.exited, 0);
        tee.assertOnlyJsonRpc();
        assert.deepEqual(agent.errors, []);
        // The daemon outlives serve: the servers stay up for the next agent.
        assert.ok(isAlive(fixturePid));
        assert.equal(await env.stopDaemon(), 0);
        assert.equal(isAlive(fixturePid), false, 'stop ended the servers');
        assert.deepEqual(selfServes(env), [], 'and the inner serve');
      } finally {
        await agent.close().catch(() => undefined);
        await env.stopDaemon();
      }
    },
  );

  it(
    'follows the settings live: list_changed on add, tools gone on remove, and calls say why',
    T,
    async () => {
      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx'), outside: env.fixture('outside') },
      });
      const agent = await connectAgent(env, ['--allowed-mcp-server-names', 'fx,added']);
      try {
        await untilAgentTools(agent, (n) => n.includes('fx__echo'), 'fx tools');
        // The ceiling holds for the daemon serve started, too: nothing outside it ever runs.
        const outside = (await agent.client.callTool({
          name: 'outside__echo',
          arguments: {},
        })) as CallToolResult;
        assert.equal(outside.isError, true);
        assert.match(textOf(outside), /allowed-mcp-server-names=fx,added/);
        assert.equal(existsSync(env.pidFile('outside')), false, 'no process outside the ceiling');
        const before = agent.listChanged();
        env.write(env.userSettingsPath, {
          mcpServers: {
            fx: env.fixture('fx'),
            outside: env.fixture('outside'),
            added: env.fixture('added', ['--tools=ping,pong']),
          },
        });
        await until('notifications/tools/list_changed', () => agent.listChanged() > before, {
          timeoutMs: 20_000,
        });
        assert.deepEqual(await agent.toolNames(), ['added__ping', 'added__pong', 'fx__echo']);
        const ping = JSON.parse(
          textOf(await agent.client.callTool({ name: 'added__ping', arguments: { n: 1 } })),
        ) as { tool: string; args: unknown };
        assert.deepEqual(ping, { ...ping, tool: 'ping', args: { n: 1 } });

        env.write(env.userSettingsPath, {
          mcpServers: { fx: env.fixture('fx'), outside: env.fixture('outside') },
        });
        await untilAgentTools(agent, (n) => !n.includes('added__ping'), 'added tools gone');
        assert.deepEqual(await agent.toolNames(), ['fx__echo']);
        const gone = (await agent.client.callTool({
          name: 'added__ping',
          arguments: {},
        })) as CallToolResult;
        assert.equal(gone.isError, true);
        assert.match(textOf(gone), /server added was removed .*: add "added" back/);
        assert.deepEqual(agent.errors, []);

        // The daemon stops under a connected agent: serve says so on stderr and stays; the
        // agent's next request brings a daemon back (serve-restart.test.ts tells the rest).
        assert.equal(await env.stopDaemon(), 0);
        await until('serve to say so', () =>
          /stopped \(mcpctl stop\); this agent's session waits/.test(agent.stderr()),
        );
        assert.ok(isAlive(agent.pid), 'serve stays');
        assert.deepEqual(await agent.toolNames(), ['fx__echo']);
      } finally {
        await agent.close().catch(() => undefined);
        await env.stopDaemon();
      }
    },
  );

  it(
    'asks about .mcp.json servers through elicitation: approve brings tools, reject never does',
    T,
    async () => {
      env.write(env.mcpJsonPath, {
        mcpServers: {
          pa: env.fixture('pa', ['--tools=yes']),
          pr: env.fixture('pr', ['--tools=no']),
        },
      });
      const asked: string[] = [];
      const agent = await connectAgent(env, [], {
        decide: (name) => {
          asked.push(name);
          return name === 'pa' ? 'approve' : 'reject';
        },
      });
      try {
        await untilAgentTools(agent, (n) => n.includes('pa__yes'), 'the approved server');
        const status = (name: string) =>
          (
            JSON.parse(readFileSync(env.approvalsPath, 'utf8')) as Record<
              string,
              Record<string, { status: string } | undefined>
            >
          )[realpathSync(env.workspace)]?.[name]?.status;
        await until('pr to be rejected', () => status('pr') === 'rejected', { timeoutMs: 20_000 });
        assert.equal(status('pa'), 'approved');
        assert.deepEqual(asked.sort(), ['pa', 'pr']);
        // Give a wrongly admitted server time to show up before concluding it never does.
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual(await agent.toolNames(), ['pa__yes']);
        assert.equal(existsSync(env.pidFile('pr')), false, 'no process for a rejected server');
        const r = (await agent.client.callTool({
          name: 'pr__no',
          arguments: {},
        })) as CallToolResult;
        assert.equal(r.isError, true);
        assert.match(textOf(r), /rejected/);
        await agent.close();
        assert.equal(await env.stopDaemon(), 0);
      } finally {
        await agent.close().catch(() => undefined);
        await env.stopDaemon();
      }
    },
  );

  it(
    'agents share one daemon and one server process; a session is released when its last serve exits',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { shared: env.fixture('shared') } });
      // Started at once: both find no daemon and start one; one daemon wins, both use it.
      const [a, b] = await Promise.all([connectAgent(env, []), connectAgent(env, [])]);
      let c: Agent | undefined;
      try {
        await untilAgentTools(a, (n) => n.includes('shared__echo'), 'shared tools (agent a)');
        await untilAgentTools(b, (n) => n.includes('shared__echo'), 'shared tools (agent b)');
        const [pa, pb] = await Promise.all([
          pidFromTool(a, 'shared__echo'),
          pidFromTool(b, 'shared__echo'),
        ]);
        assert.equal(pa, pb, 'one process serves both agents');
        assert.equal(Number(readFileSync(env.pidFile('shared'), 'utf8')), pa);
        // The losing daemon may still be starting on a loaded machine; it must exit by itself
        // (its listen finds the winner's socket), leaving exactly one.
        await until('one daemon left', () => processesMentioning(env.socket).length === 1, {
          timeoutMs: 20_000,
        });
        assert.equal(processesMentioning(env.socket).length, 1, 'one daemon');

        // A third agent with an extra config gets a session of its own, still the same process.
        const extra = path.join(env.root, 'extra-mcp.json');
        env.write(extra, { mcpServers: { more: env.fixture('more') } });
        c = await connectAgent(env, ['--mcp-config', extra]);
        await untilAgentTools(c, (n) => n.includes('more__echo'), 'agent c tools');
        assert.equal(await pidFromTool(c, 'shared__echo'), pa, 'the pool shares across sessions');
        // Straight over the socket: polling with a CLI process each time is slow on 2 cores.
        const hasSession = async () => {
          const rpc = await connectClient(env.socket);
          try {
            const list = await rpc.call<SessionList>('sessions.list');
            return list.items.some((s) => s.spec.mcpConfig === extra);
          } finally {
            await rpc.close();
          }
        };
        assert.equal(await hasSession(), true, 'agent c opened a session with its config');
        await c.close();
        // Its only serve went away: the daemon released the session (its leases drain).
        await until("agent c's session to close", async () => !(await hasSession()), {
          timeoutMs: 10_000,
        });

        await a.close();
        assert.equal(await pidFromTool(b, 'shared__echo'), pa, 'b keeps the same process');
        await b.close();
        assert.equal(await env.stopDaemon(), 0);
      } finally {
        for (const agent of [a, b, c]) await agent?.close().catch(() => undefined);
        await env.stopDaemon();
      }
    },
  );

  it('--no-daemon serves in-process, starts no daemon, ends its servers on exit', T, async () => {
    env.write(env.userSettingsPath, {
      mcpServers: { fx: env.fixture('fx', ['--tools=solo']), self: selfEntry(env) },
    });
    const tee = new TeeTransport(
      ['serve', '--no-daemon', '--workspace', env.workspace, '--debounce-ms', '50'],
      env,
    );
    const agent = await connectAgent(env, [], { tee });
    try {
      await untilAgentTools(agent, (n) => n.includes('fx__solo'), 'fx tools');
      const pid = await pidFromTool(agent, 'fx__solo');
      await until('the inner serve to run', () => selfServes(env).length === 1);
      assert.deepEqual(await agent.toolNames(), ['fx__solo'], 'mcpctl does not proxy itself');
      assert.equal(existsSync(env.socket), false, 'no daemon socket');
      const noDaemon = await env.cli(['get', 'sessions']);
      assert.equal(noDaemon.code, 1);
      assert.match(noDaemon.stderr, /no mcpctl daemon at/);

      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx', ['--tools=solo']), two: env.fixture('two') },
      });
      await untilAgentTools(agent, (n) => n.includes('two__echo'), 'live edit without a daemon');

      const exitMs = await agent.close();
      assert.ok(exitMs < PROMPT_EXIT_MS + 2000, `serve took ${exitMs} ms to exit`);
      assert.equal(await tee.exited, 0);
      assert.equal(isAlive(pid), false, 'the server process ended with serve');
      const two = Number(readFileSync(env.pidFile('two'), 'utf8'));
      assert.equal(isAlive(two), false, 'every server process ended with serve');
      assert.deepEqual(selfServes(env), [], 'the inner serve ended too');
      tee.assertOnlyJsonRpc();
      assert.deepEqual(agent.errors, []);
    } finally {
      await agent.close().catch(() => undefined);
    }
  });

  it(
    'fails clearly with nothing on stdout: a missing workspace, a socket directory that is not private',
    { timeout: 30_000 },
    async () => {
      const missing = await env.cli(['serve', '--workspace', path.join(env.root, 'nope')]);
      assert.equal(missing.code, 1);
      assert.equal(missing.stdout, '');
      assert.match(missing.stderr, /workspace .*nope is not a directory; pass an existing one/);

      const dir = path.dirname(env.socket);
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o777);
      const open = await env.cli(['serve', '--workspace', env.workspace]);
      assert.equal(open.code, 1);
      assert.equal(open.stdout, '');
      assert.match(open.stderr, /socket directory .* is writable by everyone .*refusing to use it/);
      assert.equal(existsSync(path.join(dir, 'mcpctl-daemon.log')), false, 'no daemon started');
    },
  );
});
