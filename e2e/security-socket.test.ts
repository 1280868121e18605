/**
 * Attacks on the daemon's JSON-RPC socket (issue 13: findings 3, 7, 11, 13, 15), by a careless
 * or hostile local client speaking raw bytes to the built daemon.
 *
 * What must hold: one connection's request never takes the daemon (and every session's
 * servers) down; a connection's sessions are released however early it leaves; memory held
 * for unfinished messages is bounded across connections; bad ids are refused unexecuted.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { SessionList } from '../cli/objects.js';
import { LineReader } from '../cli/rpc/protocol.js';
import { TestEnv, isAlive, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };

/** A raw socket client: what it wrote is bytes, what it reads is lines, parsed. */
interface RawClient {
  readonly socket: Socket;
  readonly messages: unknown[];
  readonly closed: Promise<void>;
  isClosed(): boolean;
}

function rawClient(socketPath: string): Promise<RawClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const reader = new LineReader(256 * 1024 * 1024);
    const messages: unknown[] = [];
    let done = false;
    const closed = new Promise<void>((r) =>
      socket.on('close', () => {
        done = true;
        r();
      }),
    );
    socket.on('data', (chunk: Buffer) => {
      for (const line of reader.push(chunk)) messages.push(JSON.parse(line));
    });
    socket.once('connect', () => {
      socket.on('error', () => undefined); // A reset by the daemon is an expected outcome.
      resolve({ socket, messages, closed, isClosed: () => done });
    });
    socket.once('error', reject);
  });
}

type ErrorLine = { id: unknown; error?: { code: number; message: string } };

function pidsOf(servers: Map<string, { status: { pid?: number } }>): number[] {
  return [...servers.values()].map((s) => s.status.pid ?? -1).sort();
}

describe('the daemon socket under attack (e2e)', T, () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('a 270,000-request batch does not take the daemon down (finding 3)', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
    const daemon = await env.startDaemon();
    const before = await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');

    const attacker = await rawClient(env.socket);
    const calls = Array.from({ length: 270_000 }, (_, i) =>
      JSON.stringify({ jsonrpc: '2.0', id: i, method: 'rpc.methods' }),
    );
    attacker.socket.write(`[${calls.join(',')}]\n`);
    // The attacker is answered with an error, or cut off; either way the daemon must go on.
    await until(
      'an answer to the huge batch',
      () => attacker.messages.length > 0 || attacker.isClosed(),
      { timeoutMs: 60_000 },
    );
    if (attacker.messages.length > 0) {
      const answer = attacker.messages[0] as { id: unknown; error?: { code: number } };
      assert.equal(answer.id, null);
      assert.equal(answer.error?.code, -32600, JSON.stringify(answer).slice(0, 300));
    }
    attacker.socket.destroy();

    const after = await env.servers();
    assert.ok(isAlive(daemon.pid), `the daemon is alive: ${daemon.stderr().slice(-2000)}`);
    assert.deepEqual(pidsOf(after), pidsOf(before), 'the servers kept running, untouched');
    assert.doesNotMatch(daemon.stderr(), /shutting down/);
  });

  it(
    'clients that hang up before their session opens leave no session or server behind (finding 7)',
    T,
    async () => {
      await env.startDaemon();
      const names: string[] = [];
      const hangUp = async (params: object, method: string) => {
        const c = await rawClient(env.socket);
        c.socket.end(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })}\n`);
        await c.closed;
      };
      for (let i = 0; i < 25; i++) {
        const name = `leak${i}`;
        names.push(name);
        const ws = path.join(env.root, name);
        mkdirSync(ws);
        const config = path.join(ws, 'servers.json');
        env.write(config, { mcpServers: { [name]: env.fixture(name) } });
        // Both ways a connection comes to hold a session: session.open, and a selector
        // naming a workspace with openIfMissing.
        if (i < 20) await hangUp({ workspace: ws, mcpConfig: config }, 'session.open');
        else await hangUp({ workspace: ws, openIfMissing: true }, 'events.list');
      }
      const sessions = await until(
        'every hung-up session to close',
        async () => {
          const list = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
          if (list.items.length === 1) return list;
          throw new Error(`${list.items.length} sessions open`);
        },
        { timeoutMs: 30_000 },
      );
      assert.deepEqual(
        sessions.items.map((s) => s.metadata.name),
        ['default'],
      );
      const pids = names
        .map((n) => env.pidFile(n))
        .filter((f) => existsSync(f))
        .map((f) => Number(readFileSync(f, 'utf8')));
      pids.forEach((pid) => env.trackPid(pid));
      await until(
        `the servers of the closed sessions to end (${pids.join(', ')})`,
        () => pids.every((pid) => !isAlive(pid)),
        { timeoutMs: 30_000 },
      );
    },
  );

  it(
    'unfinished messages are bounded across connections and time out; connections are capped (finding 11)',
    T,
    async () => {
      const MiB = 1024 * 1024;
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      const daemon = await env.startDaemon([], {
        env: {
          MCPCTL_RPC_LIMITS: `maxBufferedBytes=${4 * MiB},maxLineBytes=${2 * MiB},idleFrameMs=3000,maxConnections=20`,
        },
      });
      const before = await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');

      // Eight clients each start a 1.5 MB message and never finish it: 12 MB asked for.
      const attackers = await Promise.all(Array.from({ length: 8 }, () => rawClient(env.socket)));
      const frame = `{"jsonrpc":"2.0","id":1,"method":"rpc.methods","params":{"pad":"${'x'.repeat(1.5 * MiB)}`;
      await Promise.all(
        attackers.map(
          (a) =>
            new Promise<void>((resolve) => {
              a.socket.write(frame, () => resolve());
              void a.closed.then(resolve);
            }),
        ),
      );
      // Within the 4 MiB budget at most two unfinished messages are held; the rest are refused.
      await until(
        'the clients past the budget to be refused',
        () => attackers.filter((a) => !a.isClosed()).length <= 2,
      );
      const refusals = attackers
        .flatMap((a) => a.messages as ErrorLine[])
        .filter((m) => m.id === null && m.error?.code === -32005);
      assert.ok(
        refusals.some((m) => /unfinished messages, past its limit/.test(m.error!.message)),
        JSON.stringify(refusals),
      );
      // The held ones make no progress: they are timed out and closed too.
      await until('the stalled clients to be timed out', () =>
        attackers.every((a) => a.isClosed()),
      );
      const timedOut = attackers
        .flatMap((a) => a.messages as ErrorLine[])
        .filter((m) => /no new byte for 3000 ms/.test(m.error?.message ?? ''));
      assert.ok(timedOut.length >= 1, 'a stalled client was told why it was closed');

      // Twenty idle connections fill the connection limit: the next one is told so.
      const idle = await Promise.all(Array.from({ length: 20 }, () => rawClient(env.socket)));
      const refused = await until('a client past the connection limit to be refused', async () => {
        const r = await env.cli(['get', 'servers']);
        return r.code !== 0 ? r : undefined;
      });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /20 connections open, its limit; try again/);
      assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');
      idle.forEach((c) => c.socket.destroy());

      const after = await until('the daemon to answer again', () => env.servers());
      assert.deepEqual(pidsOf(after), pidsOf(before), 'the servers kept running, untouched');
      assert.ok(isAlive(daemon.pid));
    },
  );

  it(
    'an object id is refused unrun; wait refuses odd timeouts and conditions; no relative socket (finding 15)',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      const daemon = await env.startDaemon();
      await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');

      // daemon.stop under an object id: refused as an invalid request, and the daemon stays.
      const c = await rawClient(env.socket);
      c.socket.write('{"jsonrpc":"2.0","id":{"x":1},"method":"daemon.stop"}\n');
      await until('an answer', () => c.messages.length > 0);
      assert.deepEqual(c.messages[0], {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'invalid request: id must be a string, a number or null' },
      });
      c.socket.destroy();
      assert.equal((await env.cli(['get', 'servers', '-o', 'name'])).code, 0);
      assert.ok(isAlive(daemon.pid), 'the daemon did not stop');

      // A timeout past what a timer holds would fire at once: refused as bad usage.
      const long = await env.cli([
        'wait',
        'server/fx',
        '--for=condition=Ready=false',
        '--timeout=99999999999s',
      ]);
      assert.equal(long.code, 2, long.stderr);
      assert.match(long.stderr, /--timeout 99999999999s is longer than the longest wait/);
      const bogus = await env.cli(['wait', 'server/fx', '--for=condition=Bogus', '--timeout=1s']);
      assert.equal(bogus.code, 2, bogus.stderr);
      assert.match(bogus.stderr, /use one of Admitted, Ready, UpToDate/);

      // An empty or relative HOME never yields a socket path under the working directory.
      for (const home of ['', 'relative-home']) {
        const noSocket = { HOME: home, MCPCTL_SOCKET: '', XDG_RUNTIME_DIR: 'relative-run' };
        const r = await env.cli(['get', 'servers'], { env: noSocket });
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /HOME is .*set HOME to your home directory/);
        assert.doesNotMatch(r.stderr, /no mcpctl daemon at (?!\/)/, 'no relative socket path');
        const d = await env.cli(['daemon', '--workspace', env.workspace], { env: noSocket });
        assert.equal(d.code, 1, d.stderr);
        assert.match(d.stderr, /HOME is /);
      }
    },
  );

  it(
    'a 50,000-server .mcp.json is refused by validation; the daemon and CLI stay responsive (finding 13)',
    T,
    async () => {
      const many: Record<string, { command: string; args: string[] }> = {};
      for (let i = 0; i < 50_000; i++)
        many[`s${i}`] = { command: 'node', args: [`server-${i}.js`] };
      // Compact, as an attacker would write it: 2.2 MB, under the 4 MiB file-size cap.
      env.write(env.mcpJsonPath, JSON.stringify({ mcpServers: many }));
      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      await env.startDaemon();
      const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
      const valid = sessions.items[0]?.status.conditions.find((c) => c.type === 'ConfigValid');
      assert.equal(valid?.status, 'False', JSON.stringify(valid));
      assert.ok(valid?.message.includes(env.mcpJsonPath), valid?.message);
      assert.match(valid?.message ?? '', /50000 servers, more than the 1000/);
      const servers = await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
      assert.deepEqual([...servers.keys()], ['fx'], 'nothing of the refused file is listed');
    },
  );

  it(
    'an answer too large to send is a clear error, never a stack trace (finding 13)',
    T,
    async () => {
      const many: Record<string, { command: string }> = {};
      for (let i = 0; i < 400; i++) many[`s${i}`] = { command: `server-${i}` };
      env.write(env.userSettingsPath, { mcpServers: many });
      // Not allowed by the ceiling: listed, never started.
      await env.startDaemon(['--allowed-mcp-server-names', 'none'], {
        env: { MCPCTL_RPC_LIMITS: 'maxResponseBytes=50000' },
      });
      const r = await env.cli(['get', 'servers']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /larger than the daemon's limit of 50000 bytes; ask for less/);
      assert.doesNotMatch(r.stderr, /\n\s+at |Error:/, 'no stack trace');
      const one = await env.cli(['get', 'servers', 's7', '-o', 'name']);
      assert.equal(one.code, 0, one.stderr);
      assert.equal(one.stdout.trim(), 'server/s7');
    },
  );
});

/** A stranger's listener at `socketPath`: counts the connections it gets and the bytes. */
async function strangerListener(
  socketPath: string,
): Promise<{ connections: () => number; bytes: () => number; close: () => Promise<void> }> {
  let connections = 0;
  let bytes = 0;
  const open = new Set<Socket>();
  const server = createServer((conn) => {
    connections += 1;
    open.add(conn);
    conn.on('data', (chunk: Buffer) => (bytes += chunk.length));
    conn.on('error', () => undefined);
    conn.on('close', () => open.delete(conn));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    connections: () => connections,
    bytes: () => bytes,
    close: async () => {
      for (const conn of open) conn.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a socket that may not be our daemon (e2e, issue 31)', T, () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  /**
   * Places a stranger could listen at, each made by `make` (which returns the socket path and
   * what the refusal must say). Every one works whatever uid runs the test; a root run adds a
   * socket owned by another user.
   */
  const places: {
    name: string;
    make: () => Promise<{
      socket: string;
      says: RegExp;
      stranger: Awaited<ReturnType<typeof strangerListener>>;
    }>;
  }[] = [
    {
      name: 'a directory anyone may write',
      make: async () => {
        const dir = path.join(env.root, 'open');
        mkdirSync(dir);
        chmodSync(dir, 0o777);
        const socket = path.join(dir, 'mcpctl.sock');
        const stranger = await strangerListener(socket);
        return {
          socket,
          stranger,
          says: /socket directory .*\/open is writable by everyone \(mode 777\).*chmod 700/,
        };
      },
    },
    {
      name: 'a socket anyone may connect to',
      make: async () => {
        const dir = path.join(env.root, 'mine');
        mkdirSync(dir, { mode: 0o700 });
        const socket = path.join(dir, 'mcpctl.sock');
        const stranger = await strangerListener(socket);
        chmodSync(socket, 0o666);
        return { socket, stranger, says: /the socket is writable by everyone \(mode 666\)/ };
      },
    },
    {
      name: 'a symbolic link to a socket elsewhere',
      make: async () => {
        const elsewhere = path.join(env.root, 'elsewhere');
        mkdirSync(elsewhere, { mode: 0o700 });
        const target = path.join(elsewhere, 'real.sock');
        const stranger = await strangerListener(target);
        const dir = path.join(env.root, 'mine');
        mkdirSync(dir, { mode: 0o700 });
        const socket = path.join(dir, 'mcpctl.sock');
        symlinkSync(target, socket);
        return { socket, stranger, says: /it is a symbolic link \(to ".*real\.sock"\)/ };
      },
    },
    ...(process.getuid?.() === 0
      ? [
          {
            name: "another user's socket",
            make: async () => {
              const dir = path.join(env.root, 'mine');
              mkdirSync(dir, { mode: 0o700 });
              const socket = path.join(dir, 'mcpctl.sock');
              const stranger = await strangerListener(socket);
              chownSync(socket, 65534, 65534);
              return { socket, stranger, says: /the socket is owned by uid 65534, not by you/ };
            },
          },
        ]
      : []),
  ];

  for (const place of places)
    it(`serve, a command and login send nothing to ${place.name}`, T, async () => {
      const { socket, says, stranger } = await place.make();
      try {
        const extra = { MCPCTL_SOCKET: socket, GITHUB_TOKEN: 'ghp_secret_of_the_agent' };
        for (const args of [['serve'], ['get', 'servers'], ['login', 'remote', '--no-browser']]) {
          const r = await env.cli(args, { env: extra, timeoutMs: 30_000 });
          assert.deepEqual(
            { connections: stranger.connections(), bytes: stranger.bytes() },
            { connections: 0, bytes: 0 },
            `${args.join(' ')} sent nothing to the stranger (it said: ${r.stderr})`,
          );
          assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
          assert.equal(r.stdout, '', `${args.join(' ')} printed nothing on stdout`);
          assert.ok(
            r.stderr.startsWith(
              `mcpctl refuses to connect to ${socket}, so nothing (no request, no environment) was sent there: `,
            ),
            r.stderr,
          );
          assert.match(r.stderr, says, args.join(' '));
          assert.doesNotMatch(r.stderr, /ghp_secret/);
        }
      } finally {
        await stranger.close();
      }
    });
});
