/**
 * Attacks on the daemon's JSON-RPC socket (issue 13: findings 3, 7, 11, 13, 15), by a careless
 * or hostile local client speaking raw bytes to the built daemon.
 *
 * What must hold: one connection's request never takes the daemon (and every session's
 * servers) down; a connection's sessions are released however early it leaves; memory held
 * for unfinished messages is bounded across connections; bad ids are refused unexecuted.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { SessionList } from '../cli/resources.js';
import { LineReader } from '../cli/rpc-protocol.js';
import { TestEnv, eventually, isAlive, isReady } from '../cli/testing/harness.js';

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
    await eventually(() => attacker.messages.length > 0 || attacker.isClosed(), {
      timeoutMs: 60_000,
      what: 'an answer to the huge batch',
    });
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
      const sessions = await eventually(
        async () => {
          const list = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
          if (list.items.length === 1) return list;
          throw new Error(`${list.items.length} sessions open`);
        },
        { timeoutMs: 30_000, what: 'every hung-up session to close' },
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
      await eventually(() => pids.every((pid) => !isAlive(pid)), {
        timeoutMs: 30_000,
        what: `the servers of the closed sessions to end (${pids.join(', ')})`,
      });
    },
  );
});
