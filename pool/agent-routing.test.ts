/**
 * The pool between agents and a shared server (issue 14): a server's sampling, elicitation and
 * roots requests reach the right agent, its notifications the right agents, subscriptions and
 * the logging level are shared fairly, and raw requests keep results and progress intact.
 * Real SDK servers over the SDK's InMemoryTransport.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type Progress,
  type Root,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { until } from '../testing/until.js';
import { PoolError } from './errors.js';
import { createPool } from './mcp-pool.js';
import { hangingAnswer, RecordingPoolAgent } from './testing/agents.js';
import { callTool } from './testing/calls.js';
import { RecordingHolder } from './testing/holders.js';
import { inMemoryConnector } from './testing/in-memory.js';
import { testTicket } from './testing/tickets.js';
import { DEFAULT_TRAFFIC_LIMITS } from './traffic.js';
import type { Lease, Pool } from './types.js';
import { messageOf } from '../api/index.js';

const T = { timeout: 20_000 };

interface Gate {
  readonly wait: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** What the test server saw, and the gates a test holds it at. */
interface Seen {
  subscribes: string[];
  unsubscribes: string[];
  levels: string[];
  rootsChanged: number;
  metas: Array<Record<string, unknown> | undefined>;
  progressTokens: Array<string | number>;
  /** Calls of `wait` that are waiting now. */
  waiting: number;
  waitGate: Gate;
  /** `ask` waits for this before it asks (when the call says `gated`). */
  askGate: Gate;
}

function freshSeen(): Seen {
  return {
    subscribes: [],
    unsubscribes: [],
    levels: [],
    rootsChanged: 0,
    metas: [],
    progressTokens: [],
    waiting: 0,
    waitGate: gate(),
    askGate: gate(),
  };
}

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

/** A server that asks its client things mid-call and tells what it saw. */
function agentServer(seen: Seen): McpServer {
  const server = new McpServer(
    { name: 'asker', version: '2.5.0' },
    {
      capabilities: { logging: {}, resources: { subscribe: true, listChanged: true } },
      instructions: 'ask me things',
    },
  );
  server.registerTool(
    'ask',
    {
      inputSchema: {
        kind: z.enum(['sampling', 'elicitation', 'url']),
        gated: z.boolean(),
        // Names a task in the request's _meta (io.modelcontextprotocol/related-task).
        task: z.string().optional(),
      },
    },
    async ({ kind, gated, task }, extra) => {
      if (gated) await seen.askGate.wait;
      try {
        if (kind === 'sampling') {
          // The meta as it is on the wire (the SDK sends it so from its task message queue).
          const meta =
            task === undefined ? {} : { _meta: { [RELATED_TASK_META_KEY]: { taskId: task } } };
          const r = await server.server.createMessage(
            {
              messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
              maxTokens: 9,
              ...meta,
            },
            { signal: extra.signal },
          );
          return text(`model=${r.model}`);
        }
        const r =
          kind === 'url'
            ? await server.server.elicitInput({
                mode: 'url',
                message: 'sign in',
                url: 'https://example.test/x',
                elicitationId: 'e1',
              })
            : await server.server.elicitInput({
                message: 'who?',
                requestedSchema: { type: 'object', properties: { who: { type: 'string' } } },
              });
        return text(`action=${r.action} ${JSON.stringify(r.content ?? {})}`);
      } catch (err) {
        return text(`error=${messageOf(err)}`);
      }
    },
  );
  server.registerTool('wait', {}, async () => {
    seen.waiting += 1;
    await seen.waitGate.wait;
    seen.waiting -= 1;
    return text('waited');
  });
  server.registerTool('roots', {}, async () => {
    const r = await server.server.listRoots();
    return text(JSON.stringify(r.roots));
  });
  server.registerTool(
    'progress',
    { inputSchema: { id: z.string(), n: z.number() } },
    async ({ id, n }, extra) => {
      const token = extra._meta?.progressToken;
      if (token !== undefined) seen.progressTokens.push(token);
      seen.waiting += 1;
      await seen.waitGate.wait;
      seen.waiting -= 1;
      for (let i = 1; i <= n; i += 1) {
        if (token === undefined) break;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: n, message: id },
        });
        // Let the other call's progress interleave with this one's.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return text(id);
    },
  );
  server.registerTool('hang', {}, async (extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined) seen.progressTokens.push(token);
    if (token !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1 },
      });
    }
    await new Promise<void>((resolve) => {
      if (extra.signal.aborted) resolve();
      else extra.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return text('cancelled');
  });
  server.registerTool('meta', { inputSchema: { x: z.number().optional() } }, (_args, extra) => {
    seen.metas.push(extra._meta);
    return text('ok');
  });
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    seen.rootsChanged += 1;
  });
  server.server.setRequestHandler(SubscribeRequestSchema, (req) => {
    seen.subscribes.push(req.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    seen.unsubscribes.push(req.params.uri);
    return {};
  });
  server.server.setRequestHandler(SetLevelRequestSchema, (req) => {
    seen.levels.push(req.params.level);
    return {};
  });
  return server;
}

interface Rig {
  readonly pool: Pool;
  readonly lease: Lease;
  readonly seen: Seen;
  readonly holder: RecordingHolder;
  readonly warnings: string[];
  /** The server of the live connection. */
  server(): McpServer;
  call(tool: string, args?: Record<string, unknown>, agent?: RecordingPoolAgent): Promise<string>;
  close(): Promise<void>;
}

async function rig(): Promise<Rig> {
  const seen = freshSeen();
  const servers: McpServer[] = [];
  const mem = inMemoryConnector(() => {
    const s = agentServer(seen);
    servers.push(s);
    return s;
  });
  const warnings: string[] = [];
  const pool = createPool({
    connector: mem.connector,
    drainDelayMs: 0,
    onWarning: (m) => warnings.push(m),
  });
  const holder = new RecordingHolder('s1');
  const lease = await pool.acquire(testTicket('asker', SHARED_CONFIG), holder);
  return {
    pool,
    lease,
    seen,
    holder,
    warnings,
    server: () => servers[servers.length - 1],
    async call(tool, args = {}, agent) {
      const r = await pool.request(
        lease.key,
        { method: 'tools/call', params: { name: tool, arguments: args } },
        agent ? { caller: agent } : {},
      );
      const content = r['content'] as Array<{ text?: string }>;
      return content[0]?.text ?? '';
    },
    close: () => pool.close(),
  };
}

/**
 * The rig's server config: an absolute `cwd` runs it in one place for every workspace, so
 * sessions of several workspaces share its connection (the setting of issue #22, M3).
 */
const SHARED_CONFIG = { command: 'mem', cwd: '/srv/asker' };
/** The rig's own session s1 is in process.cwd() (testTicket's and RecordingPoolAgent's default). */
const OTHER_WS = '/ws/other';

/** Another session, of `workspace`, holding the rig's connection too. */
async function share(r: Rig, sessionId: string, workspace: string): Promise<RecordingHolder> {
  const holder = new RecordingHolder(sessionId);
  const lease = await r.pool.acquire(
    testTicket('asker', SHARED_CONFIG, { sessionId, cwd: workspace }),
    holder,
  );
  assert.equal(lease.key, r.lease.key, 'one connection for both workspaces');
  return holder;
}

/** One round trip: everything the server sent before it has been handled by the client. */
async function roundTrip(r: Rig): Promise<void> {
  await r.pool.request(r.lease.key, { method: 'ping' });
}

test('sampling and elicitation go to the agent whose call is in flight', T, async () => {
  const r = await rig();
  try {
    const a = new RecordingPoolAgent('agent A', { can: ['sampling', 'elicitation'] });
    const b = new RecordingPoolAgent('agent B', { can: ['sampling', 'elicitation'] });
    r.pool.attach(r.lease.key, a);
    r.pool.attach(r.lease.key, b);
    assert.equal(await r.call('ask', { kind: 'sampling', gated: false }, a), 'model=agent A');
    assert.equal(await r.call('ask', { kind: 'sampling', gated: false }, b), 'model=agent B');
    assert.equal(
      await r.call('ask', { kind: 'elicitation', gated: false }, b),
      'action=accept {"who":"agent B"}',
    );
    assert.equal(
      await r.call('ask', { kind: 'elicitation', gated: false }, a),
      'action=accept {"who":"agent A"}',
    );
    assert.deepEqual(
      a.requests.map((m) => m.method),
      ['sampling/createMessage', 'elicitation/create'],
    );
    assert.deepEqual(
      b.requests.map((m) => m.method),
      ['sampling/createMessage', 'elicitation/create'],
    );
    // The agent gets the server's params as sent.
    assert.deepEqual(a.requests[0]?.params, {
      messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
      maxTokens: 9,
    });
  } finally {
    await r.close();
  }
});

test(
  "issue #22 M3: B's call in flight, then A of another workspace calls: the request reaches neither",
  T,
  async () => {
    const r = await rig();
    try {
      await share(r, 's2', OTHER_WS);
      const a = new RecordingPoolAgent('agent A', { can: ['sampling'] });
      const b = new RecordingPoolAgent('agent B', { can: ['sampling'], workspace: OTHER_WS });
      r.pool.attach(r.lease.key, a);
      r.pool.attach(r.lease.key, b);
      // B's call asks (with B's data) once released; A calls meanwhile, so A called last.
      const asking = r.call('ask', { kind: 'sampling', gated: true }, b);
      const waitA = r.call('wait', {}, a);
      await until('the call of A in flight', () => r.seen.waiting === 1);
      r.seen.askGate.open();
      assert.match(
        await asking,
        /^error=MCP error -32600: mcpctl did not pass on sampling\/createMessage of server "asker": calls of 2 agents of 2 workspaces are in flight on its connection/,
      );
      r.seen.waitGate.open();
      assert.equal(await waitA, 'waited');
      assert.deepEqual(a.requests, [], "A never sees B's request");
      assert.deepEqual(b.requests, [], 'B is not asked either: whose request it is was a guess');
      // With A's call over, B's next call is the only one in flight: the request is B's.
      assert.equal(await r.call('ask', { kind: 'sampling', gated: false }, b), 'model=agent B');
      assert.deepEqual(a.requests, []);
    } finally {
      await r.close();
    }
  },
);

test('two agents of one workspace in flight: the request is not guessed either', T, async () => {
  const r = await rig();
  try {
    const a = new RecordingPoolAgent('agent A', { can: ['elicitation'] });
    const b = new RecordingPoolAgent('agent B', { can: ['elicitation'] });
    const c = new RecordingPoolAgent('agent C'); // declared nothing
    const asking = r.call('ask', { kind: 'elicitation', gated: true }, a);
    const waitB = r.call('wait', {}, b);
    const waitC = r.call('wait', {}, c);
    await until('the calls of B and C in flight', () => r.seen.waiting === 2);
    r.seen.askGate.open();
    assert.match(
      await asking,
      /^error=MCP error -32600: mcpctl did not pass on elicitation\/create of server "asker": calls of 3 agents are in flight on its connection/,
    );
    r.seen.waitGate.open();
    assert.deepEqual(await Promise.all([waitB, waitC]), ['waited', 'waited']);
    assert.deepEqual([a.requests, b.requests, c.requests], [[], [], []]);
    // Several calls of ONE agent are one agent: its request is its own.
    r.seen.waitGate = gate();
    const waitA = r.call('wait', {}, a);
    await until('the call of A in flight', () => r.seen.waiting === 1);
    assert.equal(
      await r.call('ask', { kind: 'elicitation', gated: false }, a),
      'action=accept {"who":"agent A"}',
    );
    r.seen.waitGate.open();
    assert.equal(await waitA, 'waited');
  } finally {
    await r.close();
  }
});

test('a request that names its task goes to the agent that created it, or nowhere', T, async () => {
  const r = await rig();
  try {
    await share(r, 's2', OTHER_WS);
    const a = new RecordingPoolAgent('agent A', { can: ['sampling'], tasks: ['task-a'] });
    const b = new RecordingPoolAgent('agent B', {
      can: ['sampling'],
      workspace: OTHER_WS,
      tasks: ['task-b'],
    });
    r.pool.attach(r.lease.key, a);
    r.pool.attach(r.lease.key, b);
    // A's call is the only one in flight, but the server asks for B's task (running in the
    // background, no call of B in flight): B answers.
    const waitA = r.call('wait', {}, a);
    await until('the call of A in flight', () => r.seen.waiting === 1);
    assert.equal(
      await r.call('ask', { kind: 'sampling', gated: false, task: 'task-b' }),
      'model=agent B',
    );
    // A task nobody attached created is nobody's: not the caller in flight's either.
    assert.match(
      await r.call('ask', { kind: 'sampling', gated: false, task: 'task-x' }),
      /^error=MCP error -32600: mcpctl did not pass on sampling\/createMessage of server "asker": it names task "task-x", which no agent using this connection created/,
    );
    r.seen.waitGate.open();
    assert.equal(await waitA, 'waited');
    assert.deepEqual(a.requests, [], "A never sees a request of B's task");
    assert.equal(b.requests.length, 1);
  } finally {
    await r.close();
  }
});

test(
  'no call in flight, connection shared by two workspaces: nobody is asked, the server hears why',
  T,
  async () => {
    const r = await rig();
    try {
      const s2 = await share(r, 's2', OTHER_WS);
      const a = new RecordingPoolAgent('agent A', { can: ['sampling', 'elicitation'] });
      const b = new RecordingPoolAgent('agent B', {
        can: ['sampling', 'elicitation'],
        workspace: OTHER_WS,
      });
      r.pool.attach(r.lease.key, a);
      const attB = r.pool.attach(r.lease.key, b);
      const server = r.server().server;
      // A "password" elicitation and a sampling that no agent's call caused.
      const elicited = await server
        .elicitInput({
          message: 'enter your password',
          requestedSchema: { type: 'object', properties: { password: { type: 'string' } } },
        })
        .catch((err: unknown) => err);
      assert.ok(elicited instanceof McpError, `an error, not ${JSON.stringify(elicited)}`);
      assert.equal(elicited.code, ErrorCode.InvalidRequest);
      assert.match(
        elicited.message,
        /mcpctl did not pass on elicitation\/create of server "asker": no agent's call is in flight on its connection, and sessions of 2 workspaces use it/,
      );
      const sampled = await server
        .createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'phish' } }],
          maxTokens: 9,
        })
        .catch((err: unknown) => err);
      assert.ok(sampled instanceof McpError);
      assert.deepEqual([a.requests, b.requests], [[], []], 'not broadcast across workspaces');
      // Once the other workspace lets go, the connection is A's workspace's alone again.
      attB.detach();
      r.pool.release(r.lease.key, s2.sessionId, { reason: 'sessionClosed' });
      const again = await server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 9,
      });
      assert.equal(again.model, 'agent A');
      assert.deepEqual(b.requests, []);
    } finally {
      await r.close();
    }
  },
);

test(
  'roots: a connection shared by two workspaces is offered none; its own again when alone',
  T,
  async () => {
    const r = await rig();
    try {
      const a = new RecordingPoolAgent('agent A', { roots: [{ uri: 'file:///a' }] });
      const b = new RecordingPoolAgent('agent B', {
        roots: [{ uri: 'file:///b' }],
        workspace: OTHER_WS,
      });
      r.pool.attach(r.lease.key, a);
      await until('the first roots/list_changed', () => r.seen.rootsChanged === 1);
      assert.equal(await r.call('roots'), '[{"uri":"file:///a"}]');
      // A session of another workspace takes the connection: A's roots are withdrawn at once,
      // before any agent of it is attached.
      const s2 = await share(r, 's2', OTHER_WS);
      await until('the second roots/list_changed', () => r.seen.rootsChanged === 2);
      assert.equal(await r.call('roots'), '[]');
      const attB = r.pool.attach(r.lease.key, b);
      assert.equal(await r.call('roots', {}, b), '[]', "the server never gets B's roots");
      assert.equal(await r.call('roots', {}, a), '[]', "nor A's");
      assert.equal(r.seen.rootsChanged, 2, 'nothing changed: no notification');
      attB.detach();
      r.pool.release(r.lease.key, s2.sessionId, { reason: 'sessionClosed' });
      await until('the third roots/list_changed', () => r.seen.rootsChanged === 3);
      assert.equal(await r.call('roots'), '[{"uri":"file:///a"}]');
    } finally {
      await r.close();
    }
  },
);

test(
  'no caller in flight: the attached agents that can answer race, the first wins',
  T,
  async () => {
    const r = await rig();
    try {
      const none = new RecordingPoolAgent('agent N');
      const slow = new RecordingPoolAgent('agent S', { can: ['sampling'], answer: hangingAnswer });
      const fast = new RecordingPoolAgent('agent F', { can: ['sampling'] });
      r.pool.attach(r.lease.key, none);
      r.pool.attach(r.lease.key, slow);
      r.pool.attach(r.lease.key, fast);
      // callTool carries no caller: nobody's call is in flight.
      const res = await callTool(r.pool, r.lease.key, 'ask', { kind: 'sampling', gated: false });
      assert.deepEqual(res.content, [{ type: 'text', text: 'model=agent F' }]);
      assert.equal(slow.requests.length, 1);
      assert.deepEqual(slow.aborted, ['sampling/createMessage'], 'the loser was aborted');
      assert.deepEqual(fast.aborted, [], 'the winner is never cancelled after answering');
      assert.equal(none.requests.length, 0);
      // The one caller in flight cannot answer: its request goes to no other agent.
      assert.equal(
        await r.call('ask', { kind: 'sampling', gated: false }, none),
        'error=MCP error -32600: no agent connected through mcpctl can answer sampling/createMessage for server "asker": the agent whose call is in flight (agent N) did not declare sampling',
      );
      assert.equal(fast.requests.length, 1);
    } finally {
      await r.close();
    }
  },
);

test('nobody can answer: the server gets an error that says why', T, async () => {
  const r = await rig();
  try {
    assert.equal(
      await r.call('ask', { kind: 'sampling', gated: false }),
      'error=MCP error -32600: no agent connected through mcpctl can answer sampling/createMessage for server "asker": no agent is using it now',
    );
    r.pool.attach(r.lease.key, new RecordingPoolAgent('agent A', { can: ['sampling'] }));
    r.pool.attach(r.lease.key, new RecordingPoolAgent('agent B'));
    assert.equal(
      await r.call('ask', { kind: 'elicitation', gated: false }),
      'error=MCP error -32600: no agent connected through mcpctl can answer elicitation/create for server "asker": none of its 2 agents declared elicitation',
    );
    const c = new RecordingPoolAgent('agent C', { can: ['elicitation'] });
    c.canAnswer = (m) => m.method === 'elicitation/create' && m.params?.['mode'] !== 'url';
    r.pool.attach(r.lease.key, c);
    // mcpctl declares form mode only, so the server's own SDK refuses url mode before asking.
    assert.equal(
      await r.call('ask', { kind: 'url', gated: false }, c),
      'error=Client does not support url elicitation.',
    );
  } finally {
    await r.close();
  }
});

test("the server's cancel aborts the request forwarded to the agent", T, async () => {
  const r = await rig();
  try {
    const a = new RecordingPoolAgent('agent A', { can: ['sampling'], answer: hangingAnswer });
    r.pool.attach(r.lease.key, a);
    // Twice: the server's first request has id 0, which the SDK alone would not cancel.
    for (const n of [1, 2]) {
      const cancel = new AbortController();
      // The call's own cancel reaches the server, whose handler aborts its createMessage.
      const call = r.pool
        .request(
          r.lease.key,
          {
            method: 'tools/call',
            params: { name: 'ask', arguments: { kind: 'sampling', gated: false } },
          },
          { caller: a, signal: cancel.signal },
        )
        .catch((err: unknown) => err);
      await until(`forwarded request ${n}`, () => a.requests.length === n);
      cancel.abort(new Error('the agent gave up'));
      assert.ok((await call) instanceof Error);
      await until(`forwarded request ${n} aborted`, () => a.aborted.length === n);
    }
    assert.deepEqual(r.holder.lost, []);
  } finally {
    await r.close();
  }
});

test(
  'roots/list is the union of the attached agents; list_changed when it changes',
  T,
  async () => {
    const r = await rig();
    try {
      const root = (uri: string, name?: string): Root => ({ uri, ...(name ? { name } : {}) });
      assert.equal(await r.call('roots'), '[]');
      const a = new RecordingPoolAgent('agent A', {
        roots: [root('file:///a', 'A'), root('file:///s')],
      });
      const b = new RecordingPoolAgent('agent B', {
        roots: [root('file:///s', 'S'), root('file:///b')],
      });
      const attA = r.pool.attach(r.lease.key, a);
      await until('the first roots/list_changed', () => r.seen.rootsChanged === 1);
      const attB = r.pool.attach(r.lease.key, b);
      await until('the second roots/list_changed', () => r.seen.rootsChanged === 2);
      assert.deepEqual(JSON.parse(await r.call('roots')), [
        { uri: 'file:///a', name: 'A' },
        { uri: 'file:///s' },
        { uri: 'file:///b' },
      ]);
      // Nothing changed: no notification.
      attA.rootsChanged();
      const sameAsA = r.pool.attach(
        r.lease.key,
        new RecordingPoolAgent('agent C', { roots: [root('file:///b')] }),
      );
      await roundTrip(r);
      assert.equal(r.seen.rootsChanged, 2);
      sameAsA.detach();
      await roundTrip(r);
      assert.equal(r.seen.rootsChanged, 2);
      a.rootList = [root('file:///a2')];
      attA.rootsChanged();
      await until('the third roots/list_changed', () => r.seen.rootsChanged === 3);
      attB.detach();
      await until('the fourth roots/list_changed', () => r.seen.rootsChanged === 4);
      assert.deepEqual(JSON.parse(await r.call('roots')), [{ uri: 'file:///a2' }]);
      attA.detach();
      attA.detach();
      await until('the fifth roots/list_changed', () => r.seen.rootsChanged === 5);
      assert.equal(await r.call('roots'), '[]');
      await roundTrip(r);
      assert.equal(r.seen.rootsChanged, 5);
    } finally {
      await r.close();
    }
  },
);

test('subscriptions are refcounted; updates reach only the subscribers', T, async () => {
  const r = await rig();
  try {
    const a = new RecordingPoolAgent('agent A');
    const b = new RecordingPoolAgent('agent B');
    const c = new RecordingPoolAgent('agent C');
    const attA = r.pool.attach(r.lease.key, a);
    const attB = r.pool.attach(r.lease.key, b);
    r.pool.attach(r.lease.key, c);
    await Promise.all([attA.subscribe('mem://x'), attB.subscribe('mem://x')]);
    await attA.subscribe('mem://x');
    await attA.subscribe('mem://y');
    assert.deepEqual(r.seen.subscribes, ['mem://x', 'mem://y']);

    await r.server().server.sendResourceUpdated({ uri: 'mem://x' });
    await r.server().server.sendResourceUpdated({ uri: 'mem://y' });
    await r.server().server.sendResourceUpdated({ uri: 'mem://z' });
    r.server().sendResourceListChanged();
    await r.server().server.notification({
      method: 'notifications/message',
      params: { level: 'info', data: 'hello' },
    });
    await r.server().server.notification({ method: 'notifications/custom', params: { n: 1 } });
    await roundTrip(r);
    const uris = (p: RecordingPoolAgent) =>
      p.heard('notifications/resources/updated').map((m) => m.params?.['uri']);
    assert.deepEqual(uris(a), ['mem://x', 'mem://y']);
    assert.deepEqual(uris(b), ['mem://x']);
    assert.deepEqual(uris(c), []);
    for (const p of [a, b, c]) {
      assert.equal(p.heard('notifications/resources/list_changed').length, 1, p.label);
      assert.deepEqual(p.heard('notifications/message'), [
        { method: 'notifications/message', params: { level: 'info', data: 'hello' } },
      ]);
      assert.deepEqual(p.heard('notifications/custom'), [
        { method: 'notifications/custom', params: { n: 1 } },
      ]);
      assert.ok(p.notes.every((n) => n.key === r.lease.key));
    }

    await attB.unsubscribe('mem://x');
    await attB.unsubscribe('mem://x');
    assert.deepEqual(r.seen.unsubscribes, [], 'A still holds mem://x');
    attA.detach();
    await until('both unsubscribes', () => r.seen.unsubscribes.length === 2);
    assert.deepEqual([...r.seen.unsubscribes].sort(), ['mem://x', 'mem://y']);
    await r.server().server.sendResourceUpdated({ uri: 'mem://x' });
    await roundTrip(r);
    assert.deepEqual(uris(a), ['mem://x', 'mem://y'], 'a detached agent hears nothing');
    await assert.rejects(attA.subscribe('mem://x'), PoolError);
  } finally {
    await r.close();
  }
});

test('the server runs at the most verbose level any attached agent asked for', T, async () => {
  const r = await rig();
  try {
    const attA = r.pool.attach(r.lease.key, new RecordingPoolAgent('agent A'));
    const attB = r.pool.attach(r.lease.key, new RecordingPoolAgent('agent B'));
    await attA.setLogLevel('warning');
    await attB.setLogLevel('debug');
    await attA.setLogLevel('error');
    assert.deepEqual(r.seen.levels, ['warning', 'debug']);
    attB.detach();
    await until('the third logging level', () => r.seen.levels.length === 3);
    assert.equal(r.seen.levels[2], 'error');
    attA.detach();
    await roundTrip(r);
    assert.deepEqual(r.seen.levels, ['warning', 'debug', 'error'], 'nobody wants a level: kept');
  } finally {
    await r.close();
  }
});

test('progress goes to its own request only, and none after it ended', T, async () => {
  const r = await rig();
  try {
    const a: Progress[] = [];
    const b: Progress[] = [];
    const call = (id: string, sink: Progress[]) =>
      r.pool.request(
        r.lease.key,
        {
          method: 'tools/call',
          params: { name: 'progress', arguments: { id, n: 3 }, _meta: { progressToken: 7 } },
        },
        { onprogress: (p) => sink.push(p) },
      );
    const both = Promise.all([call('A', a), call('B', b)]);
    await until('both calls in flight', () => r.seen.waiting === 2);
    r.seen.waitGate.open();
    await both;
    assert.deepEqual(
      a.map((p) => [p.message, p.progress]),
      [
        ['A', 1],
        ['A', 2],
        ['A', 3],
      ],
    );
    assert.deepEqual(
      b.map((p) => [p.message, p.progress]),
      [
        ['B', 1],
        ['B', 2],
        ['B', 3],
      ],
    );
    const [tokenA, tokenB] = r.seen.progressTokens;
    assert.notEqual(tokenA, tokenB);
    assert.ok(!r.seen.progressTokens.includes(7), "the agent's token never reaches the server");

    // Progress for a request that completed, and for one that was cancelled, is dropped; the
    // connection does not take it for an error.
    await r.server().server.notification({
      method: 'notifications/progress',
      params: { progressToken: tokenA, progress: 9 },
    });
    const late: Progress[] = [];
    const cancel = new AbortController();
    const hanging = r.pool
      .request(
        r.lease.key,
        { method: 'tools/call', params: { name: 'hang', arguments: {} } },
        { signal: cancel.signal, onprogress: (p) => late.push(p) },
      )
      .catch((err: unknown) => err);
    await until('the progress of the hanging call', () => late.length === 1);
    cancel.abort(new Error('stop'));
    assert.ok((await hanging) instanceof Error);
    const hangToken = r.seen.progressTokens[2];
    assert.notEqual(hangToken, undefined);
    await r.server().server.notification({
      method: 'notifications/progress',
      params: { progressToken: hangToken, progress: 2 },
    });
    await roundTrip(r);
    assert.equal(a.length, 3);
    assert.equal(late.length, 1);
    assert.deepEqual(r.holder.lost, []);
    assert.equal(r.pool.stats()[0]?.state, 'ready');
  } finally {
    await r.close();
  }
});

test("the agent's progressToken never reaches the server; other _meta does", T, async () => {
  const r = await rig();
  try {
    const meta = (m: Record<string, unknown>) => ({
      method: 'tools/call',
      params: { name: 'meta', arguments: {}, _meta: m },
    });
    await r.pool.request(r.lease.key, meta({ progressToken: 'agent-1', trace: 'x' }));
    await r.pool.request(r.lease.key, meta({ progressToken: 'agent-2' }));
    await r.pool.request(r.lease.key, meta({ progressToken: 'agent-3', trace: 'y' }), {
      onprogress: () => undefined,
    });
    assert.deepEqual(r.seen.metas[0], { trace: 'x' });
    assert.equal(r.seen.metas[1], undefined);
    assert.equal(r.seen.metas[2]?.['trace'], 'y');
    assert.match(
      String(r.seen.metas[2]?.['progressToken']),
      /^mcpctl-\d+$/,
      "the pool's own token",
    );
  } finally {
    await r.close();
  }
});

test('a result reaches the caller exactly as the server sent it', T, async () => {
  const sent = {
    content: [
      { type: 'text', text: 'hi', annotations: { audience: ['user'] } },
      { type: 'resource_link', uri: 'mem://doc', name: 'doc' },
    ],
    structuredContent: { n: 1, deep: { list: [1, 'two'] } },
    isError: false,
    _meta: { 'example.test/trace': 'abc' },
    somethingNew: { from: 'a later spec' },
  };
  const mem = inMemoryConnector(() => {
    const server = new Server({ name: 'raw', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 't', inputSchema: { type: 'object' } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => sent);
    return server;
  });
  const pool = createPool({ connector: mem.connector, drainDelayMs: 0 });
  try {
    const lease = await pool.acquire(
      testTicket('raw', { command: 'x' }),
      new RecordingHolder('s1'),
    );
    const got = await pool.request(lease.key, {
      method: 'tools/call',
      params: { name: 't', arguments: {} },
    });
    assert.deepEqual(got, sent);
    // A method the server lacks: its McpError, as the server said it.
    const err = await pool
      .request(lease.key, { method: 'resources/list' })
      .catch((e: unknown) => e);
    assert.ok(err instanceof McpError);
    assert.equal(err.code, ErrorCode.MethodNotFound);
  } finally {
    await pool.close();
  }
});

test('what one agent would change for all is not sent through request()', T, async () => {
  const r = await rig();
  try {
    for (const method of [
      'initialize',
      'logging/setLevel',
      'resources/subscribe',
      'resources/unsubscribe',
    ]) {
      await assert.rejects(
        r.pool.request(r.lease.key, { method, params: {} }),
        (err: Error) => err instanceof PoolError && err.message.includes(method),
      );
    }
    assert.deepEqual(r.seen.levels, []);
    assert.deepEqual(r.seen.subscribes, []);
  } finally {
    await r.close();
  }
});

test('lease: capabilities, version and instructions of the server', T, async () => {
  const r = await rig();
  try {
    assert.deepEqual(r.lease.serverVersion?.(), { name: 'asker', version: '2.5.0' });
    assert.equal(r.lease.instructions?.(), 'ask me things');
    assert.deepEqual(r.lease.serverCapabilities?.()?.resources, {
      subscribe: true,
      listChanged: true,
    });
    assert.ok(r.lease.serverCapabilities?.()?.tools);
  } finally {
    await r.close();
  }
});

test('when the connection ends, attachments end silently', T, async () => {
  const seen = freshSeen();
  const mem = inMemoryConnector(() => agentServer(seen));
  const pool = createPool({ connector: mem.connector, drainDelayMs: 0 });
  try {
    const holder = new RecordingHolder('s1');
    const lease = await pool.acquire(testTicket('asker', { command: 'mem' }), holder);
    const a = new RecordingPoolAgent('agent A', { can: ['sampling'], answer: hangingAnswer });
    const att = pool.attach(lease.key, a);
    await att.subscribe('mem://x');
    // A forwarded request in progress is aborted when the connection goes.
    void callTool(pool, lease.key, 'ask', { kind: 'sampling', gated: false }).catch(
      () => undefined,
    );
    await until('the forwarded request', () => a.requests.length === 1);
    await mem.servers[0]?.crash();
    await holder.nextLost();
    await until('the forwarded request aborted', () => a.aborted.length === 1);
    att.detach();
    att.rootsChanged();
    await att.unsubscribe('mem://x');
    await assert.rejects(att.subscribe('mem://y'), PoolError);
    await assert.rejects(att.setLogLevel('debug'), PoolError);
    assert.throws(() => pool.attach(lease.key, a), PoolError);
    await assert.rejects(pool.request(lease.key, { method: 'ping' }), PoolError);
    assert.deepEqual(seen.unsubscribes, []);
  } finally {
    await pool.close();
  }
});

test(
  'attack: an agent whose callbacks throw disturbs neither others nor the connection',
  T,
  async () => {
    const r = await rig();
    try {
      const bad = new RecordingPoolAgent('agent Bad', { can: ['sampling'] });
      bad.notify = () => {
        throw new Error('boom');
      };
      bad.roots = () => {
        throw new Error('no roots');
      };
      bad.canAnswer = () => {
        throw new Error('no idea');
      };
      const good = new RecordingPoolAgent('agent Good', {
        can: ['sampling'],
        roots: [{ uri: 'file:///g' }],
      });
      r.pool.attach(r.lease.key, bad);
      r.pool.attach(r.lease.key, good);
      await r.server().server.notification({
        method: 'notifications/message',
        params: { level: 'info', data: 'x' },
      });
      assert.equal(await r.call('roots'), '[{"uri":"file:///g"}]');
      assert.equal(await r.call('ask', { kind: 'sampling', gated: false }), 'model=agent Good');
      assert.equal(good.heard('notifications/message').length, 1);
      assert.ok(r.warnings.some((w) => /notify of agent Bad .*boom/.test(w)));
      assert.deepEqual(r.holder.lost, []);
    } finally {
      await r.close();
    }
  },
);

test('attack: a server that floods messages and asks roots/list in a loop', T, async () => {
  const seen = freshSeen();
  let server: McpServer | undefined;
  const mem = inMemoryConnector(() => {
    server = agentServer(seen);
    return server;
  });
  const pool = createPool({
    connector: mem.connector,
    drainDelayMs: 0,
    trafficLimits: { ...DEFAULT_TRAFFIC_LIMITS, messagesPerSecond: 50, messageBurst: 100 },
  });
  try {
    const holder = new RecordingHolder('s1');
    const lease = await pool.acquire(testTicket('asker', { command: 'mem' }), holder);
    const a = new RecordingPoolAgent('agent A', { roots: [{ uri: 'file:///a' }] });
    const b = new RecordingPoolAgent('agent B');
    pool.attach(lease.key, a);
    pool.attach(lease.key, b);
    const s = server as McpServer;
    const floods: Promise<unknown>[] = [];
    let answered = 0;
    for (let i = 0; i < 3000; i += 1) {
      floods.push(
        s.server.notification({
          method: 'notifications/message',
          params: { level: 'info', data: i },
        }),
      );
      if (i % 10 === 0) {
        // Past the budget a request is dropped: the server's own timeout ends its wait.
        floods.push(
          s.server
            .listRoots(undefined, { timeout: 2000 })
            .then(() => (answered += 1))
            .catch(() => undefined),
        );
      }
    }
    const r = await callTool(pool, lease.key, 'meta', {});
    assert.deepEqual(r.content, [{ type: 'text', text: 'ok' }]);
    await until('the flood report', () => lease.flooding?.() !== undefined);
    await Promise.all(floods);
    assert.ok(answered > 0, 'roots/list within the budget is answered');
    const heard = b.heard('notifications/message').length;
    assert.ok(heard > 0 && heard < 3000, `B heard ${heard} of 3000`);
    assert.equal(a.heard('notifications/message').length, heard, 'both agents alike');
    assert.deepEqual(holder.lost, []);
    assert.equal(pool.stats()[0]?.state, 'ready');
  } finally {
    await pool.close();
  }
});
