import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { agentEnvironment, daemonEnvironment, type SessionEnvironment } from '../api/index.js';
import {
  createConnector,
  DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS,
  DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS,
  discoveryTimeoutOf,
  remoteErrorIsFatal,
} from './connector.js';
import { ConnectError, DiscoveryDeadline, DiscoveryTimeoutError } from './errors.js';
import { createPool } from './mcp-pool.js';
import { callTool } from './testing/calls.js';
import { fixtureConfig, readPid, startHttpFixtureProcess, tempDir } from './testing/fixtures.js';
import { RecordingHolder } from './testing/holders.js';
import { testTicket } from './testing/tickets.js';
import { pidAlive } from '../proc/index.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 30_000 };

test(
  'discovery timeouts: discoveryTimeoutMs, else 30 s stdio and 10 s remote',
  { timeout: 1000 },
  () => {
    assert.equal(discoveryTimeoutOf({ command: 'x' }), DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS);
    assert.equal(DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS, 30_000);
    assert.equal(
      discoveryTimeoutOf({ httpUrl: 'http://h/mcp' }),
      DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS,
    );
    assert.equal(discoveryTimeoutOf({ url: 'http://h/sse' }), 10_000);
    assert.equal(discoveryTimeoutOf({ command: 'x', discoveryTimeoutMs: 1234 }), 1234);
  },
);

test('the stderr tail appears in a connect-failure message', T, async () => {
  const connect = createConnector({ graceMs: 300 });
  const config = fixtureConfig([
    '--exit-at-start',
    '--exit-code=2',
    '--stderr-lines=30',
    '--stderr=Error: TOKEN is not set',
  ]);
  const err = await connect(testTicket('needs-token', config), new AbortController().signal).then(
    () => assert.fail('connect should fail'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConnectError);
  assert.equal(err.server, 'needs-token');
  assert.match(err.message, /^server "needs-token": process exited with code 2 during initialize/);
  assert.match(err.message, /Error: TOKEN is not set/);
  assert.match(err.message, /stderr \(last 20 of 31 lines\)/);
  assert.equal(err.stderrTail.length, 31);
});

test('a missing command or working directory is said plainly', T, async () => {
  const connect = createConnector();
  const signal = new AbortController().signal;
  await assert.rejects(
    connect(testTicket('nope', { command: 'mcp-server-that-does-not-exist-xyz' }), signal),
    {
      name: 'ConnectError',
      message:
        /server "nope": cannot start "mcp-server-that-does-not-exist-xyz": command not found/,
    },
  );
  await assert.rejects(
    connect(
      testTicket('nocwd', { command: process.execPath, cwd: '/nonexistent/dir/xyz' }),
      signal,
    ),
    { message: /working directory \/nonexistent\/dir\/xyz does not exist/ },
  );
  await assert.rejects(connect(testTicket('empty', {}), signal), {
    name: 'ConnectError',
    message: /server "empty": has neither "command" nor/,
  });
});

test('an abort with a DiscoveryDeadline kills the process and names the phase', T, async () => {
  const dir = tempDir();
  try {
    const connect = createConnector({ graceMs: 200 });
    const ac = new AbortController();
    const config = fixtureConfig([
      '--hang-before-initialize',
      `--pid-file=${dir.file('pid')}`,
      '--stderr=loading…',
    ]);
    const pending = connect(testTicket('slowpoke', config), ac.signal);
    const pid = await readPid(dir.file('pid'));
    ac.abort(new DiscoveryDeadline(1500));
    const err = await pending.then(
      () => assert.fail('should fail'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof DiscoveryTimeoutError);
    assert.equal(err.timeoutMs, 1500);
    assert.match(err.message, /server "slowpoke": timed out after 1500 ms during initialize/);
    assert.match(err.message, /loading…/);
    assert.ok(!pidAlive(pid));
  } finally {
    dir.remove();
  }
});

test(
  'streamable HTTP: connects with headers and lists tools; a missing header fails with a clear error',
  T,
  async () => {
    const server = await startHttpFixtureProcess([
      '--tools=alpha,beta',
      '--require-header=X-Api-Key:k123',
    ]);
    const pool = createPool({ drainDelayMs: 0 });
    try {
      const config = { httpUrl: server.url, headers: { 'X-Api-Key': 'k123' } };
      const lease = await pool.acquire(testTicket('remote', config), new RecordingHolder('s1'));
      assert.equal(lease.pid, undefined);
      assert.deepEqual(
        lease
          .tools()
          .map((t) => t.name)
          .sort(),
        ['alpha', 'beta'],
      );
      const out = JSON.parse(textOf(await callTool(pool, lease.key, 'alpha', { q: 1 }))) as {
        transport: string;
        pid: number;
      };
      assert.equal(out.transport, 'streamable-http');
      assert.equal(out.pid, server.pid);

      const claude = await pool.acquire(
        testTicket('claude-shape', {
          type: 'http',
          url: server.url,
          headers: { 'X-Api-Key': 'k123' },
        }),
        new RecordingHolder('s1'),
      );
      assert.equal(claude.tools().length, 2);

      await assert.rejects(
        pool.acquire(testTicket('nokey', { httpUrl: server.url }), new RecordingHolder('s1')),
        {
          name: 'ConnectError',
          message:
            /server "nokey": could not connect to http:\/\/127\.0\.0\.1:\d+\/mcp \(streamable HTTP\): HTTP 401, not authorised: check the credentials in the server's "headers"; .*missing header X-Api-Key/,
        },
      );
    } finally {
      await pool.close();
      await server.stop();
    }
  },
);

test('SSE: connects and lists tools', T, async () => {
  const server = await startHttpFixtureProcess(['--tools=gamma']);
  const pool = createPool({ drainDelayMs: 0 });
  try {
    const lease = await pool.acquire(
      testTicket('legacy', { url: server.sseUrl }),
      new RecordingHolder('s1'),
    );
    assert.deepEqual(
      lease.tools().map((t) => t.name),
      ['gamma'],
    );
    const out = JSON.parse(textOf(await callTool(pool, lease.key, 'gamma', {}))) as {
      transport: string;
    };
    assert.equal(out.transport, 'sse');
  } finally {
    await pool.close();
    await server.stop();
  }
});

test('an unreachable remote server fails fast with the server named', T, async () => {
  // A port that was free a moment ago: nothing listens there.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
    });
  });
  const connect = createConnector();
  await assert.rejects(
    connect(
      testTicket('gone', { httpUrl: `http://user:secret@127.0.0.1:${port}/mcp?token=abc` }),
      new AbortController().signal,
    ),
    (err: unknown) => {
      assert.ok(err instanceof ConnectError);
      assert.match(
        err.message,
        /^server "gone": could not connect to http:\/\/<redacted>@127\.0\.0\.1:\d+\/mcp\?token=<redacted> \(streamable HTTP\)/,
      );
      assert.doesNotMatch(err.message, /secret|token=abc/, 'no credentials in messages');
      return true;
    },
  );
});

test(
  'remote transport errors: only those that mean the connection is dead are fatal',
  { timeout: 1000 },
  () => {
    assert.equal(remoteErrorIsFatal(new TypeError('fetch failed')), true);
    assert.equal(
      remoteErrorIsFatal(new Error('Maximum reconnection attempts (2) exceeded.')),
      true,
    );
    assert.equal(
      remoteErrorIsFatal(new Error('SSE stream disconnected: TypeError: terminated')),
      false,
    );
    assert.equal(remoteErrorIsFatal(new SyntaxError('Unexpected token')), false);
    assert.equal(remoteErrorIsFatal(new StreamableHTTPError(404, 'Session not found')), true);
    assert.equal(
      remoteErrorIsFatal(new StreamableHTTPError(400, 'Failed to open SSE stream')),
      false,
    );
  },
);

test(
  "a stdio server starts in its session's environment, the pool's marks and its env, nothing else",
  T,
  async () => {
    const marks = { MCPCTL_MARK: 'inside' };
    const pool = createPool({ drainDelayMs: 0, serverEnv: marks });
    // Set in this process only: a server of an agent's session must not see it.
    process.env.CONNECTOR_TEST_DAEMON_ONLY = 'daemon-secret';
    try {
      const echo = '--echo-env=PATH,AGENT_ONLY,CONNECTOR_TEST_DAEMON_ONLY,MCPCTL_MARK,OWN';
      const config = fixtureConfig([echo], { env: { OWN: 'own', AGENT_ONLY: 'overridden' } });
      const agent = agentEnvironment({ PATH: process.env.PATH ?? '', AGENT_ONLY: 'agent' });
      const call = async (env: SessionEnvironment, session: string) => {
        const lease = await pool.acquire(
          testTicket('fx', config, { env, sessionId: session }),
          new RecordingHolder(session),
        );
        const out = JSON.parse(textOf(await callTool(pool, lease.key, 'echo', {}))) as {
          pid: number;
          env: Record<string, string | null>;
        };
        return { ...out, key: lease.key };
      };
      const inAgent = await call(agent, 's1');
      assert.deepEqual(inAgent.env, {
        PATH: process.env.PATH ?? '',
        AGENT_ONLY: 'overridden',
        CONNECTOR_TEST_DAEMON_ONLY: null,
        MCPCTL_MARK: 'inside',
        OWN: 'own',
      });
      const inDaemon = await call(daemonEnvironment(process.env), 's2');
      assert.equal(inDaemon.env.CONNECTOR_TEST_DAEMON_ONLY, 'daemon-secret');
      assert.equal(inDaemon.env.MCPCTL_MARK, 'inside');
      assert.notEqual(inDaemon.key, inAgent.key, 'two environments, two connections');
      assert.notEqual(inDaemon.pid, inAgent.pid);
    } finally {
      delete process.env.CONNECTOR_TEST_DAEMON_ONLY;
      await pool.close();
    }
  },
);
