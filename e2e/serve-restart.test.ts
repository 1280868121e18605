/**
 * e2e: the agent's session outlives the daemon (issue 25). Real SDK clients spawn the BUILT
 * `mcpctl serve`; the daemon, the servers (the stdio fixture) and the kills are real.
 *
 * What must hold:
 * - the daemon SIGKILLed under two agents, each mid-call on a slow tool: both calls fail at
 *   once with an error saying the daemon went away and the call may or may not have run; their
 *   next calls succeed on a new daemon, without a second `initialize` from the agent; the tool
 *   lists are equal before and after; a resource subscription still delivers
 *   `resources/updated`; one daemon runs afterwards;
 * - five serves whose daemon is killed: one daemon starts, all five recover;
 * - three agents, one call in flight, kill -9: the calls each agent makes once that call
 *   failed (sent after the death, some into sockets the dying daemon had not closed yet)
 *   wait for the new daemon and run once, round after round (issue 31, item 14);
 * - an approval question open when the daemon dies is asked again by the new one, and the
 *   late answer to the old question decides nothing;
 * - `mcpctl stop` under agents: their calls in flight fail, no daemon comes back by itself,
 *   and the next request starts one and goes through;
 * - `mcpctl restart`: a new daemon takes over at once, the agents' sessions go on;
 * - a daemon of another gateway protocol: serve says to run `mcpctl stop`, which ends it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { connectClient } from '../cli/rpc/client.js';
import { until } from '../testing/until.js';
import { RecordingAgent, connectThroughServe, textOf } from './gateway-agent.js';
import { TestEnv, isAlive, processesMentioning } from './harness.js';

const T = { timeout: 120_000 };
const URI = 'fixture://status';

/** The pids of the daemons at the test's socket. */
function daemonPids(env: TestEnv): number[] {
  return processesMentioning(env.socket).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('\0daemon\0');
    } catch {
      return false;
    }
  });
}

async function daemonPid(env: TestEnv): Promise<number> {
  const client = await connectClient(env.socket, 2000);
  try {
    return (await client.call<{ pid: number }>('daemon.status')).pid;
  } finally {
    await client.close();
  }
}

/** Waits until exactly one daemon runs; a failure says which ran and what the log says. */
async function oneDaemon(env: TestEnv, agents: readonly Agent[]): Promise<number> {
  return until('one daemon', () => {
    const pids = daemonPids(env);
    return pids.length === 1 ? pids[0] : undefined;
  }).catch(() => {
    const log = path.join(path.dirname(env.socket), 'mcpctl-daemon.log');
    const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
    assert.fail(
      `daemons: ${daemonPids(env).join(', ')}\nlog:\n${lines.filter((l) => !l.includes('"level":20')).join('\n')}\nserves:\n${agents.map((a) => a.stderr()).join('\n')}`,
    );
  });
}

/** An agent that counts the tools/list_changed it gets. */
class Agent extends RecordingAgent {
  toolsChanged = 0;
  constructor(label: string) {
    super({ label });
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.toolsChanged += 1;
    });
  }

  initializes(): number {
    return this.sent.filter((m) => m === 'initialize').length;
  }

  async toolNames(): Promise<string[]> {
    return (await this.client.listTools()).tools.map((t) => t.name).sort();
  }
}

/**
 * A call of the slow tool, its outcome settled as a string; resolves once the server has it.
 * (In an object: an async function would wait for a promise it returns.)
 */
async function slowCall(
  env: TestEnv,
  agent: Agent,
  name: string,
): Promise<{ outcome: Promise<string> }> {
  const marker = path.join(env.root, `${name}.called`);
  const outcome = agent.callTool('fx__sleep', { ms: 600_000, marker }).then(
    (r) => `answered: ${textOf(r)}`,
    (err: Error) => `failed: ${err.message}`,
  );
  await until(`${name}'s call to reach the server`, () => existsSync(marker));
  return { outcome };
}

function fixtureServers(env: TestEnv): void {
  env.write(env.userSettingsPath, {
    mcpServers: { fx: env.fixture('fx', ['--tools=echo,sleep,touch', `--resource=${URI}`]) },
  });
}

const echo = async (agent: Agent, value: number) =>
  JSON.parse(textOf(await agent.callTool('fx__echo', { value }))) as { args: { value: number } };

describe("the agent's session outlives the daemon (e2e)", () => {
  let env: TestEnv;
  let agents: Agent[] = [];
  beforeEach(() => {
    env = new TestEnv();
    agents = [];
  });
  afterEach(async () => {
    for (const a of agents) await a.close().catch(() => undefined);
    await env.cli(['stop'], { timeoutMs: 30_000 });
    await env.cleanup();
  });

  const connect = async (label: string): Promise<Agent> => {
    const agent = new Agent(label);
    agents.push(agent);
    await connectThroughServe(env, agent);
    return agent;
  };

  it(
    'kill -9 under two agents mid-call: errors at once, then the same sessions on a new daemon',
    T,
    async () => {
      fixtureServers(env);
      const a = await connect('agent-a');
      const b = await connect('agent-b');
      const before = await until('the fixture tools', async () => {
        const names = await a.toolNames();
        return names.includes('fx__touch') ? names : undefined;
      });
      assert.deepEqual(await b.toolNames(), before);
      await a.client.subscribeResource({ uri: URI });
      assert.match(textOf(await a.callTool('fx__touch')), /"subscribed":true/);
      await until('resources/updated before the kill', () => a.updated.includes(URI));

      const [old] = daemonPids(env);
      assert.ok(old, 'serve started a daemon');
      const calls = [await slowCall(env, a, 'a'), await slowCall(env, b, 'b')];
      process.kill(old, 'SIGKILL');

      for (const outcome of await Promise.all(calls.map((c) => c.outcome)))
        assert.match(
          outcome,
          /^failed: MCP error -32000: the mcpctl daemon went away while this tools\/call request was in flight .*may or may not have run/,
          `serve said: ${a.stderr()} | ${b.stderr()}`,
        );
      // The next calls go through, on a new daemon, in the same MCP sessions.
      for (const [agent, value] of [
        [a, 1],
        [b, 2],
      ] as const)
        assert.equal((await echo(agent, value)).args.value, value);
      assert.deepEqual(
        [a.initializes(), b.initializes()],
        [1, 1],
        'no agent sent a second initialize',
      );
      const now = await daemonPid(env);
      assert.notEqual(now, old, 'a new daemon answers');
      assert.ok(!isAlive(old));
      assert.deepEqual(await a.toolNames(), before);
      assert.deepEqual(await b.toolNames(), before);
      await until(
        'tools/list_changed after the restore',
        () => a.toolsChanged > 0 && b.toolsChanged > 0,
      );

      // The subscription was restored on the new gateway (and its new server process).
      a.updated.length = 0;
      assert.match(textOf(await a.callTool('fx__touch')), /"subscribed":true/);
      await until('resources/updated after the restart', () => a.updated.includes(URI));
      assert.equal(await oneDaemon(env, [a, b]), now);
      assert.deepEqual([...a.errors, ...b.errors], []);
      assert.match(
        a.stderr(),
        /the mcpctl daemon at .* went away \(see .*mcpctl-daemon\.log\); bringing one back/,
      );
    },
  );

  it('five serves whose daemon is killed: one daemon starts, all five recover', T, async () => {
    fixtureServers(env);
    const five: Agent[] = [];
    for (let i = 0; i < 5; i += 1) five.push(await connect(`agent-${i}`));
    for (const agent of five)
      await until('the tools', async () => (await agent.toolNames()).includes('fx__echo'));
    const [old] = daemonPids(env);
    process.kill(old, 'SIGKILL');
    // Every serve sees the close at once and races to bring a daemon back.
    await until('a new daemon', async () => (await daemonPid(env)) !== old, { timeoutMs: 30_000 });
    const results = await Promise.all(five.map((agent, i) => echo(agent, i)));
    assert.deepEqual(
      results.map((r) => r.args.value),
      [0, 1, 2, 3, 4],
    );
    const running = await oneDaemon(env, five);
    const started = five.flatMap((agent) => [
      ...agent.stderr().matchAll(/started an mcpctl daemon \(pid (\d+)\)/g),
    ]);
    assert.deepEqual(
      started.map((m) => Number(m[1])).filter((pid) => pid !== old),
      [running],
      'one serve says it started the daemon that runs',
    );
    assert.deepEqual(
      five.map((agent) => agent.initializes()),
      [1, 1, 1, 1, 1],
    );
  });

  it(
    'calls sent after the daemon died wait for the daemon that stays and run once',
    { timeout: 300_000 },
    async () => {
      // Three agents, one call in flight, kill -9; once that call's error is back, every agent
      // calls echo: those calls were sent after the death, so each must run, once. Several
      // rounds: which serve notices the close first, and which daemon wins the start, vary.
      const calls = path.join(env.root, 'calls.jsonl');
      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx', ['--tools=echo,sleep', `--call-log=${calls}`]) },
      });
      const three = [await connect('agent-a'), await connect('agent-b'), await connect('agent-c')];
      for (const agent of three)
        await until('the tools', async () => (await agent.toolNames()).includes('fx__sleep'));
      for (let round = 1; round <= 4; round += 1) {
        const old = await daemonPid(env);
        const call = await slowCall(env, three[0], `round-${round}`);
        process.kill(old, 'SIGKILL');
        assert.match(
          await call.outcome,
          /^failed: MCP error -32000: the mcpctl daemon went away while this tools\/call request was in flight/,
        );
        const values = three.map((_, i) => round * 10 + i);
        const outcomes = await Promise.all(
          three.map((agent, i) =>
            echo(agent, values[i]).then(
              (r) => `answered ${r.args.value}`,
              (err: Error) => `failed: ${err.message}`,
            ),
          ),
        );
        assert.deepEqual(
          outcomes,
          values.map((v) => `answered ${v}`),
          `round ${round}; serves said:\n${three.map((a) => a.stderr()).join('\n')}`,
        );
        await oneDaemon(env, three);
      }
      // Each echo ran exactly once (the servers, one per daemon, logged every call they ran).
      const ran = readFileSync(calls, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { tool: string; args: { value?: number } })
        .filter((c) => c.tool === 'echo')
        .map((c) => c.args.value ?? -1)
        .sort((x, y) => x - y);
      assert.deepEqual(ran, [10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42]);
    },
  );

  it(
    'an approval question open when the daemon dies is asked again by the new one',
    T,
    async () => {
      env.write(env.mcpJsonPath, { mcpServers: { pa: env.fixture('pa', ['--tools=yes']) } });
      const a = new Agent('agent-a');
      agents.push(a);
      const questions: string[] = [];
      const answers: ((result: ElicitResult) => void)[] = [];
      a.client.setRequestHandler(ElicitRequestSchema, (request) => {
        questions.push(request.params.message);
        return new Promise<ElicitResult>((resolve) => answers.push(resolve));
      });
      await connectThroughServe(env, a);
      await until('the approval question', () => questions.length === 1);
      assert.match(questions[0], /MCP server "pa"/);
      const [old] = daemonPids(env);
      process.kill(old, 'SIGKILL');
      await until('the question asked again', () => questions.length === 2, { timeoutMs: 30_000 });
      assert.match(questions[1], /MCP server "pa"/);
      // The old question is answered late: its daemon is gone, so the answer decides nothing
      // (it would otherwise be taken for the new question's, whose id may be the same).
      answers[0]({ action: 'accept', content: { decision: 'reject' } });
      answers[1]({ action: 'accept', content: { decision: 'approve' } });
      await until('the approved server', async () => (await a.toolNames()).includes('pa__yes'));
      const decisions = JSON.parse(readFileSync(env.approvalsPath, 'utf8')) as Record<
        string,
        Record<string, { status: string }>
      >;
      assert.equal(decisions[realpathSync(env.workspace)]?.pa?.status, 'approved');
      assert.equal(a.initializes(), 1);
    },
  );

  it(
    'mcpctl stop under agents: calls in flight fail, and the next request brings a daemon back',
    T,
    async () => {
      fixtureServers(env);
      const a = await connect('agent-a');
      await until('the tools', async () => (await a.toolNames()).includes('fx__sleep'));
      const call = await slowCall(env, a, 'a');
      const old = await daemonPid(env);
      const stop = await env.cli(['stop'], { timeoutMs: 60_000 });
      assert.equal(stop.code, 0, stop.stderr);
      assert.match(
        await call.outcome,
        /^failed: MCP error -32000: the mcpctl daemon went away/,
        `serve said: ${a.stderr()}`,
      );
      await until('serve to say what happened', () =>
        /stopped \(mcpctl stop\); this agent's session waits: its next request starts a daemon/.test(
          a.stderr(),
        ),
      );
      // The stopped daemon has closed every connection; its process is on its way out.
      await until('the stopped daemon to exit', () => !isAlive(old));
      assert.deepEqual(daemonPids(env), [], 'nothing brings a daemon back by itself');
      assert.equal((await echo(a, 7)).args.value, 7);
      assert.equal(daemonPids(env).length, 1);
      assert.equal(a.initializes(), 1);
    },
  );

  it('mcpctl restart: a new daemon takes over at once, the agents go on', T, async () => {
    fixtureServers(env);
    const a = await connect('agent-a');
    await until('the tools', async () => (await a.toolNames()).includes('fx__echo'));
    const old = await daemonPid(env);
    const r = await env.cli(['restart'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    const now = await daemonPid(env);
    assert.notEqual(now, old);
    assert.match(
      r.stdout,
      new RegExp(`mcpctl daemon \\(pid ${old}\\) .* stopped; pid ${now} took over 1 agent`),
    );
    assert.equal((await echo(a, 3)).args.value, 3);
    assert.equal(a.initializes(), 1);
  });

  it(
    'a daemon of another gateway protocol: serve says to run mcpctl stop, which ends it',
    T,
    async () => {
      const other = await otherProtocolDaemon(env.socket);
      try {
        const r = await env.cli(['serve'], { timeoutMs: 30_000 });
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stdout, '', 'nothing but MCP on stdout');
        assert.match(
          r.stderr,
          /the running mcpctl daemon at .* \(mcpctl 9\.9\.9, pid 4242\) speaks gateway protocol 99, this mcpctl serve \(.*\) 1 to 2: run `mcpctl stop`; the next mcpctl serve then starts a daemon of its own version/,
        );
        const stop = await env.cli(['stop'], { timeoutMs: 30_000 });
        assert.equal(stop.code, 0, stop.stderr);
        assert.ok(!other.server.listening, 'the daemon stopped');
        assert.deepEqual(other.methods, ['gateway.open', 'daemon.stop']);
      } finally {
        other.server.close();
      }
    },
  );
});

/**
 * A daemon of a future mcpctl: it answers `gateway.open` with protocol 99 and stops on
 * `daemon.stop` (every mcpctl's), closing its connections.
 */
async function otherProtocolDaemon(socket: string): Promise<{ server: Server; methods: string[] }> {
  mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  const methods: string[] = [];
  const server = createServer((conn) => {
    conn.on('error', () => undefined);
    let buffered = '';
    conn.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const request = JSON.parse(buffered.slice(0, nl)) as { id: number; method: string };
        buffered = buffered.slice(nl + 1);
        methods.push(request.method);
        const answer = (result: unknown) =>
          conn.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result })}\n`);
        if (request.method === 'gateway.open')
          answer({ sessionId: 's1', protocol: 99, pid: 4242, version: '9.9.9' });
        else if (request.method === 'daemon.stop') {
          answer({ pid: 4242 });
          server.close();
          conn.end();
        } else
          conn.write(
            `${JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'no such method' } })}\n`,
          );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { server, methods };
}
