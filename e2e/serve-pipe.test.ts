/**
 * e2e: `mcpctl serve` is a pipe to the agent's gateway in the daemon (issue 14). A real SDK
 * client spawns the BUILT CLI; the daemon is real and so are its servers (the stdio fixture).
 *
 * What must hold: the daemon ending a connected agent's connection on purpose (while it runs
 * on) → serve exits 1 with one clear line on stderr, the agent's client sees the connection
 * end (its call in flight fails, no hang), and stdout carried only JSON-RPC lines; stdin
 * closed → serve exits 0 and the daemon releases the session; a daemon that refuses the
 * connection → exit 1, nothing on stdout. (A daemon that goes away: serve-restart.test.ts.)
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SessionList } from '../cli/objects.js';
import { CLI, TestEnv, isAlive, isReady, processesMentioning } from './harness.js';
import { until } from '../testing/until.js';
import { rawConnect } from '../cli/testing/gateway-client.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 60_000 };

/** Spawns serve and keeps every stdout line, to check nothing but JSON-RPC appears there. */
class ServeProcess implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly lines: string[] = [];
  stdout = '';
  stderr = '';
  child!: ChildProcessWithoutNullStreams;
  exited!: Promise<number | null>;
  closedSeen = false;

  constructor(
    private readonly env: TestEnv,
    private readonly args: readonly string[],
  ) {}

  start(): Promise<void> {
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--workspace', this.env.workspace, '--debounce-ms', '50', ...this.args],
      { cwd: this.env.workspace, env: this.env.env(), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.child = child;
    this.env.trackPid(child.pid);
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString()));
    child.stdin.on('error', () => undefined); // serve gone: the test looks at its exit.
    let partial = '';
    child.stdout.on('data', (c: Buffer) => {
      this.stdout += c.toString();
      const parts = (partial + c.toString()).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        this.lines.push(line);
        try {
          this.onmessage?.(JSONRPCMessageSchema.parse(JSON.parse(line)));
        } catch (err) {
          this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        }
      }
    });
    child.on('close', () => {
      this.closedSeen = true;
      this.onclose?.();
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', reject);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.child.stdin.writable) this.child.stdin.write(`${JSON.stringify(message)}\n`);
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await this.exited;
  }

  assertOnlyJsonRpc(): void {
    assert.ok(this.lines.length > 0, 'serve wrote MCP messages');
    for (const line of this.lines)
      assert.ok(
        JSONRPCMessageSchema.safeParse(JSON.parse(line)).success,
        `stdout line is not JSON-RPC: ${line}`,
      );
  }
}

async function connect(env: TestEnv, args: readonly string[] = []) {
  const serve = new ServeProcess(env, args);
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' }, { capabilities: {} });
  const errors: Error[] = [];
  client.onerror = (err) => errors.push(err);
  await client.connect(serve);
  return { serve, client, errors };
}

describe('mcpctl serve is a pipe to the gateway in the daemon (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'the daemon ends the connection (a second gateway.open): serve exits 1 saying so, the client sees the end, stdout is only JSON-RPC',
    T,
    async () => {
      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx', ['--tools=echo,sleep']) },
      });
      const { serve, client, errors } = await connect(env);
      try {
        const tools = await until('the fixture tools', async () => {
          const names = (await client.listTools()).tools.map((t) => t.name);
          return names.includes('fx__sleep') ? names : undefined;
        });
        assert.deepEqual(tools.sort(), ['fx__echo', 'fx__sleep']);
        const echo = JSON.parse(
          textOf(await client.callTool({ name: 'fx__echo', arguments: { a: 1 } })),
        ) as { args: unknown };
        assert.deepEqual(echo.args, { a: 1 });

        const daemons = processesMentioning(env.socket).filter((pid) =>
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('\0daemon\0'),
        );
        assert.equal(daemons.length, 1, 'serve started one daemon');
        // A call in flight when the connection ends must fail, not hang.
        const inFlight = client.callTool({ name: 'fx__sleep', arguments: { ms: 30_000 } }).then(
          () => 'answered',
          (err: Error) => `failed: ${err.message}`,
        );
        // The agent confuses its protocols: the daemon answers, then closes this connection.
        serve.child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: 'again', method: 'gateway.open', params: { workspace: env.workspace } })}\n`,
        );

        assert.equal(await serve.exited, 1);
        assert.match(await inFlight, /^failed: /);
        await until('the client to see the close', () => serve.closedSeen);
        const logFile = path.join(path.dirname(env.socket), 'mcpctl-daemon.log');
        assert.ok(
          serve.stderr.includes(
            `mcpctl serve: the mcpctl daemon at ${env.socket} ended this connection (see ${logFile}); restart this MCP server to reconnect\n`,
          ),
          serve.stderr,
        );
        assert.ok(isAlive(daemons[0]), 'the daemon runs on');
        assert.ok(serve.stdout === '' || serve.stdout.endsWith('\n'), 'no partial line');
        serve.assertOnlyJsonRpc();
        assert.ok(
          errors.every((e) => /gateway\.open was the first line/.test(e.message)),
          errors.map((e) => e.message).join('; '),
        );
      } finally {
        await client.close().catch(() => undefined);
      }
    },
  );

  it('stdin closed: serve exits 0 and the daemon releases the session', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
    await env.startDaemon();
    // Another workspace: its session exists only for this agent.
    const other = path.join(env.root, 'other');
    mkdirSync(other);
    const sessions = async () =>
      (await env.json<SessionList>(['get', 'sessions', '-o', 'json'])).items.map(
        (s) => s.spec.workspace,
      );
    const { serve, client } = await connect(env, ['--workspace', other]);
    try {
      await until('the tools', async () =>
        (await client.listTools()).tools.some((t) => t.name === 'fx__echo'),
      );
      assert.ok((await sessions()).includes(other), 'the agent holds a session for its folder');
      const started = Date.now();
      serve.child.stdin.end();
      assert.equal(await serve.exited, 0);
      assert.ok(Date.now() - started < 5000, 'serve exits promptly');
      assert.equal(serve.stderr, '', 'nothing to say on a normal exit');
      await until(
        "the agent's session to be released",
        async () => !(await sessions()).includes(other),
      );
      const servers = await env.servers();
      assert.ok(isReady(servers.get('fx')), 'the daemon and its default session go on');
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  it(
    'a daemon that refuses the connection: exit 1, the reason and the log on stderr, nothing on stdout',
    T,
    async () => {
      // The daemon's one connection (its limit, lowered for this test) is taken.
      const limited = env.spawnDaemon(
        ['daemon', '--workspace', env.workspace, '--debounce-ms', '50', '--drain-delay-ms', '0'],
        { env: { MCPCTL_RPC_LIMITS: 'maxConnections=1' } },
      );
      const holder = await until('the limited daemon to listen', async () => {
        if (limited.child.exitCode !== null) throw new Error(limited.stderr());
        return rawConnect(env.socket);
      });
      try {
        const r = await env.cli(['serve', '--workspace', env.workspace]);
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stdout, '');
        assert.match(
          r.stderr,
          /could not open a session for .* in the daemon at .*: the daemon has 1 connections open, its limit; .*see the daemon's log .*mcpctl-daemon\.log/,
        );
        assert.ok(isAlive(limited.pid));
      } finally {
        holder.destroy();
      }
    },
  );
});
