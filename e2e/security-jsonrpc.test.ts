/**
 * e2e: what an agent gets back for JSON-RPC that is not valid, through the built `mcpctl serve`
 * (a pipe to its gateway in the daemon), speaking raw lines on serve's stdin.
 *
 * What must hold (JSON-RPC 2.0 §5, README "Security"): a message that is not a valid Request
 * object is answered `-32600`, with the request's id when that id is valid and `null`
 * otherwise; a line that is not JSON `-32700` with id `null`; nothing of it runs. A valid
 * notification is never answered. A request whose params do not fit its method is answered
 * `-32602` with one readable line naming the field and what was expected (never a dump of the
 * validator's issues). The connection goes on serving after each of them.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { LineReader } from '../cli/rpc/protocol.js';
import { CLI, TestEnv, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };

interface Answer {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly method?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/** An agent that writes raw lines to `mcpctl serve` and keeps every line serve writes. */
class RawAgent {
  readonly answers: Answer[] = [];
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #exited: Promise<void>;
  #stderr = '';

  constructor(env: TestEnv, args: readonly string[]) {
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--workspace', env.workspace, '--debounce-ms', '50', ...args],
      { cwd: env.workspace, env: env.env(), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    env.trackPid(child.pid);
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once('close', () => resolve()));
    const reader = new LineReader();
    child.stdout.on('data', (c: Buffer) => {
      for (const line of reader.push(c)) this.answers.push(JSON.parse(line) as Answer);
    });
    child.stderr.on('data', (c: Buffer) => (this.#stderr += c.toString()));
    child.stdin.on('error', () => undefined);
  }

  write(...lines: string[]): void {
    this.#child.stdin.write(lines.map((l) => `${l}\n`).join(''));
  }

  /** The answer with `id` (a response, not a notification), once it came. */
  answerTo(id: unknown): Promise<Answer> {
    return until(`the answer to id ${JSON.stringify(id)} (serve stderr: ${this.#stderr})`, () =>
      this.answers.find((a) => a.method === undefined && a.id === id),
    );
  }

  async close(): Promise<void> {
    this.#child.stdin.end();
    await this.#exited;
  }
}

const line = (message: unknown) => JSON.stringify(message);

describe('invalid JSON-RPC from an agent, through mcpctl serve (e2e)', () => {
  let env: TestEnv;
  let agent: RawAgent | undefined;
  beforeEach(() => {
    env = new TestEnv();
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
  });
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
    await env.cleanup();
  });

  /** An initialized agent on serve: through the daemon, or with `--no-daemon`. */
  async function initialized(mode: 'daemon' | 'no-daemon' = 'daemon'): Promise<RawAgent> {
    if (mode === 'daemon') {
      await env.startDaemon();
      await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
    }
    const a = (agent = new RawAgent(env, mode === 'daemon' ? [] : ['--no-daemon']));
    a.write(
      line({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    );
    const init = await a.answerTo('init');
    assert.ok(init.result, JSON.stringify(init));
    a.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return a;
  }

  for (const mode of ['daemon', 'no-daemon'] as const)
    it(
      `${mode}: an invalid Request object is answered -32600 (its id when valid, else null) and runs nothing; a valid notification is not answered`,
      T,
      async () => {
        const a = await initialized(mode);
        const cases: { readonly send: string; readonly id: unknown; readonly code: number }[] = [
          { send: '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', id: null, code: -32600 },
          { send: '{"jsonrpc":"2.0","id":true,"method":"ping"}', id: null, code: -32600 },
          { send: '{"jsonrpc":"2.0","id":{},"method":"ping"}', id: null, code: -32600 },
          { send: '{"jsonrpc":"2.0","id":[],"method":"ping"}', id: null, code: -32600 },
          { send: '{"jsonrpc":"2.0","id":null,"method":"ping"}', id: null, code: -32600 },
          { send: '{"jsonrpc":"1.0","id":"v1","method":"ping"}', id: 'v1', code: -32600 },
          { send: '{"id":"v0","method":"ping"}', id: 'v0', code: -32600 },
          { send: '{"jsonrpc":"2.0","id":"m","method":123}', id: 'm', code: -32600 },
          {
            send: '{"jsonrpc":"2.0","id":"p","method":"ping","params":"x"}',
            id: 'p',
            code: -32600,
          },
          // The fast path of tools/call must not take (and answer) a call with a bad id either.
          {
            send: '{"jsonrpc":"2.0","id":true,"method":"tools/call","params":{"name":"fx__echo"}}',
            id: null,
            code: -32600,
          },
          // Not a request, not a response: no id to answer with.
          { send: '{"jsonrpc":"2.0","id":7}', id: null, code: -32600 },
          {
            send: '{"jsonrpc":"1.0","method":"notifications/initialized"}',
            id: null,
            code: -32600,
          },
          { send: '{"jsonrpc":"2.0",', id: null, code: -32700 },
          { send: '42', id: null, code: -32600 },
        ];
        const before = a.answers.length;
        a.write(
          ...cases.map((c) => c.send),
          // Valid notifications: never answered (one the gateway knows, one it does not).
          line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } }),
          line({ jsonrpc: '2.0', method: 'notifications/unknown/kind' }),
          line({ jsonrpc: '2.0', id: 'after', method: 'ping' }),
        );
        const after = await a.answerTo('after');
        assert.deepEqual(after.result, {}, 'the connection goes on serving');
        const answered = a.answers
          .slice(before)
          .filter((m) => m.method === undefined && m.id !== 'after');
        assert.deepEqual(
          answered.map((m) => ({ id: m.id, code: m.error?.code })),
          cases.map((c) => ({ id: c.id, code: c.code })),
          'one error per invalid message, in order, and nothing for the notifications',
        );
        for (const m of answered) {
          assert.equal(m.jsonrpc, '2.0');
          assert.equal(typeof m.error?.message, 'string');
          assert.doesNotMatch(m.error?.message ?? '', /\n/, 'one line');
        }
        // Nothing ran: the call with the bad id never reached the server.
        const calls = a.answers.filter((m) => m.result !== undefined && m.id === true);
        assert.deepEqual(calls, []);
      },
    );

  it(
    'params that do not fit the method are answered -32602 with one line naming the field',
    T,
    async () => {
      const a = await initialized();
      a.write(
        line({ jsonrpc: '2.0', id: 'read', method: 'resources/read', params: { uri: 5 } }),
        line({ jsonrpc: '2.0', id: 'read-none', method: 'resources/read', params: {} }),
        line({
          jsonrpc: '2.0',
          id: 'complete',
          method: 'completion/complete',
          params: { ref: { type: 'ref/prompt', name: 7 }, argument: { name: 'a', value: 'b' } },
        }),
        line({
          jsonrpc: '2.0',
          id: 'level',
          method: 'logging/setLevel',
          params: { level: 'loud' },
        }),
        line({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: { cursor: 9 } }),
      );
      const expected: Record<string, RegExp> = {
        read: /^resources\/read: params\.uri must be a string, not a number$/,
        'read-none': /^resources\/read: params\.uri is missing \(a string is expected\)$/,
        complete: /^completion\/complete: params\.ref\.name must be a string, not a number$/,
        level: /^logging\/setLevel: params\.level must be one of "debug", "info", .*"emergency"$/,
        list: /^tools\/list: params\.cursor must be a string, not a number$/,
      };
      for (const [id, message] of Object.entries(expected)) {
        const answer = await a.answerTo(id);
        assert.equal(answer.error?.code, -32602, `${id}: ${JSON.stringify(answer)}`);
        assert.match(answer.error?.message ?? '', message, id);
      }
      a.write(line({ jsonrpc: '2.0', id: 'after', method: 'ping' }));
      assert.deepEqual((await a.answerTo('after')).result, {});
    },
  );
});
