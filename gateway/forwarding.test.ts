/**
 * The gateway forwards all of MCP (one process, real Session, in-memory pooled servers): two
 * agents on the same session and the same pooled connection each get their own progress,
 * their own sampling request and the resource updates they subscribed to; resources, links,
 * completion, logging, paging and unavailable servers behave as the gateway promises.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import {
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type LoggingMessageNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createPool } from '../pool/index.js';
import { inMemoryConnector } from '../pool/testing/in-memory.js';
import { harness, servers, type Harness } from '../controller/testing/harness.js';
import { until } from '../testing/until.js';
import { createGatewayServer } from './gateway.js';
import { LocalSessionPort } from './local-port.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 30_000 };

/** A server with a bit of everything, named `id` in its answers. */
function richServer(id: string): McpServer {
  const s = new McpServer(
    { name: `rich-${id}`, version: '1.0.0' },
    {
      capabilities: { logging: {}, resources: { subscribe: true } },
      instructions: `use ${id} well`,
    },
  );
  s.registerTool('work', { inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++)
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps },
        });
    return { content: [{ type: 'text', text: `${id} worked ${steps}` }] };
  });
  s.registerTool('ask', { inputSchema: { q: z.string() } }, async ({ q }) => {
    const answer = await s.server.createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: q } }],
      maxTokens: 10,
    });
    return { content: [{ type: 'text', text: `model said ${JSON.stringify(answer.content)}` }] };
  });
  s.registerTool('roots', {}, async () => {
    const { roots } = await s.server.listRoots();
    return { content: [{ type: 'text', text: roots.map((r) => r.uri).join(' ') }] };
  });
  s.registerTool('link', {}, () => ({
    content: [{ type: 'resource_link', uri: `hidden://${id}/1`, name: 'hidden' }],
    structuredContent: { id },
    _meta: { 'x.test/kept': true },
  }));
  s.registerTool('log', { inputSchema: { level: z.string() } }, async ({ level }) => {
    await s.server.sendLoggingMessage({
      level: level as 'info',
      data: `from ${id}`,
      logger: 'core',
    });
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  s.registerTool('touch', { inputSchema: { uri: z.string() } }, async ({ uri }) => {
    await s.server.sendResourceUpdated({ uri });
    return { content: [{ type: 'text', text: 'touched' }] };
  });
  // McpServer answers no subscriptions itself; a server that offers them does.
  s.server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  s.server.setRequestHandler(UnsubscribeRequestSchema, () => ({}));
  s.registerResource('readme', `static://${id}/readme`, {}, (uri) => ({
    contents: [{ uri: uri.href, text: `readme of ${id}` }],
  }));
  s.registerResource(
    'item',
    new ResourceTemplate(`item://${id}/{n}`, {
      list: undefined,
      complete: { n: (value) => ['1', '2', '10'].filter((v) => v.startsWith(value)) },
    }),
    {},
    (uri) => ({ contents: [{ uri: uri.href, text: `item ${uri.href}` }] }),
  );
  s.registerResource(
    'hidden',
    new ResourceTemplate(`hidden://${id}/{n}`, { list: undefined }),
    {},
    (uri) => ({
      contents: [{ uri: uri.href, text: `hidden ${uri.href}` }],
    }),
  );
  s.registerPrompt(
    'team',
    {
      argsSchema: {
        dept: completable(z.string(), (v) =>
          ['Engineering', 'Sales'].filter((d) => d.startsWith(v)),
        ),
      },
    },
    ({ dept }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `team ${dept}` } }],
    }),
  );
  return s;
}

interface Agent {
  client: Client;
  logs: LoggingMessageNotification['params'][];
  updates: string[];
  sampled: string[];
  close(): Promise<void>;
}

async function agent(h: Harness, name: string, root: string): Promise<Agent> {
  const session = await h.session();
  const port = new LocalSessionPort(session);
  const gateway = createGatewayServer(port, {
    version: '0.0.0-test',
    log: () => undefined,
    label: name,
    pageSize: 2,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client(
    { name, version: '1.0.0' },
    { capabilities: { sampling: {}, roots: { listChanged: true } } },
  );
  const state: Agent = {
    client,
    logs: [],
    updates: [],
    sampled: [],
    async close() {
      await client.close();
      await gateway.server.close();
      gateway.detach();
      await port.close();
    },
  };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    state.logs.push(n.params);
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    state.updates.push(n.params.uri);
  });
  client.setRequestHandler(CreateMessageRequestSchema, (r) => {
    const first = r.params.messages[0]?.content;
    state.sampled.push(first && 'text' in first ? String(first.text) : '?');
    return { role: 'assistant', model: name, content: { type: 'text', text: `${name} answers` } };
  });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: root, name }] }));
  await gateway.server.connect(b);
  await client.connect(a);
  await session.settled();
  return state;
}

/** Every item of a paged list, following the gateway's cursors. */
async function all<T>(page: (cursor?: string) => Promise<{ items: T[]; nextCursor?: string }>) {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const p = await page(cursor);
    out.push(...p.items);
    cursor = p.nextCursor;
  } while (cursor);
  return out;
}

describe('gateway forwarding', T, () => {
  let h: Harness;
  beforeEach(async () => {
    const mem = inMemoryConnector((ticket) => richServer(ticket.config.args?.[0] ?? 'x'));
    h = await harness({ pool: createPool({ connector: mem.connector, drainDelayMs: 0 }) });
    h.write(
      h.files.user,
      servers({ a: { command: 'rich', args: ['a'] }, b: { command: 'rich', args: ['b'] } }),
    );
  });
  afterEach(async () => {
    await h.close();
  });

  it('progress and sampling reach only the agent whose call caused them', T, async () => {
    const one = await agent(h, 'one', 'file:///one');
    const two = await agent(h, 'two', 'file:///two');
    try {
      const progress: Record<string, Progress[]> = { one: [], two: [] };
      const [r1, r2] = await Promise.all([
        one.client.callTool(
          { name: 'a__work', arguments: { steps: 3 }, _meta: { progressToken: 7 } },
          undefined,
          {
            onprogress: (p) => progress.one.push(p),
          },
        ),
        two.client.callTool(
          { name: 'a__work', arguments: { steps: 5 }, _meta: { progressToken: 7 } },
          undefined,
          {
            onprogress: (p) => progress.two.push(p),
          },
        ),
      ]);
      assert.equal(textOf(r1), 'a worked 3');
      assert.equal(textOf(r2), 'a worked 5');
      assert.deepEqual(
        progress.one.map((p) => p.progress),
        [1, 2, 3],
      );
      assert.deepEqual(
        progress.two.map((p) => p.progress),
        [1, 2, 3, 4, 5],
      );

      assert.match(
        textOf(await two.client.callTool({ name: 'a__ask', arguments: { q: 'hi two' } })),
        /two answers/,
      );
      assert.match(
        textOf(await one.client.callTool({ name: 'a__ask', arguments: { q: 'hi one' } })),
        /one answers/,
      );
      assert.deepEqual(one.sampled, ['hi one']);
      assert.deepEqual(two.sampled, ['hi two']);

      // Roots: both agents' roots, as the server asks its client.
      const roots = textOf(await one.client.callTool({ name: 'a__roots', arguments: {} }));
      assert.deepEqual(roots.split(' ').sort(), ['file:///one', 'file:///two']);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it(
    'resources merge, page, route by URI, template and link; updates go to subscribers only',
    T,
    async () => {
      const one = await agent(h, 'one', 'file:///one');
      const two = await agent(h, 'two', 'file:///two');
      try {
        const listed = await all(async (cursor) => {
          const r = await one.client.listResources(cursor ? { cursor } : undefined);
          return { items: r.resources, nextCursor: r.nextCursor };
        });
        assert.deepEqual(listed.map((r) => r.uri).sort(), [
          'static://a/readme',
          'static://b/readme',
        ]);
        const templates = await all(async (cursor) => {
          const r = await one.client.listResourceTemplates(cursor ? { cursor } : undefined);
          return { items: r.resourceTemplates, nextCursor: r.nextCursor };
        });
        assert.equal(templates.length, 4);
        const read = async (uri: string) =>
          ((await one.client.readResource({ uri })).contents[0] as { text: string }).text;
        assert.equal(await read('static://b/readme'), 'readme of b');
        assert.equal(await read('item://a/10'), 'item item://a/10');
        // A link a tool returned: result untouched, and the URI readable as it is.
        const linked = await one.client.callTool({ name: 'b__link', arguments: {} });
        assert.deepEqual(linked.structuredContent, { id: 'b' });
        assert.deepEqual(linked._meta, { 'x.test/kept': true });
        assert.equal(await read('hidden://b/1'), 'hidden hidden://b/1');
        await assert.rejects(
          one.client.readResource({ uri: 'nobody://x' }),
          /no server of this session/,
        );

        await one.client.subscribeResource({ uri: 'static://a/readme' });
        await two.client.callTool({ name: 'a__touch', arguments: { uri: 'static://a/readme' } });
        await until('update', () => one.updates.length > 0);
        assert.deepEqual(one.updates, ['static://a/readme']);
        assert.deepEqual(two.updates, []);
      } finally {
        await one.close();
        await two.close();
      }
    },
  );

  it('completion, logging levels and prompts go to the right server', T, async () => {
    const one = await agent(h, 'one', 'file:///one');
    try {
      const c = await one.client.complete({
        ref: { type: 'ref/prompt', name: 'b__team' },
        argument: { name: 'dept', value: 'Eng' },
      });
      assert.deepEqual(c.completion.values, ['Engineering']);
      const r = await one.client.complete({
        ref: { type: 'ref/resource', uri: 'item://a/{n}' },
        argument: { name: 'n', value: '1' },
      });
      assert.deepEqual(r.completion.values, ['1', '10']);
      const prompt = await one.client.getPrompt({ name: 'a__team', arguments: { dept: 'Sales' } });
      assert.deepEqual(prompt.messages[0]?.content, { type: 'text', text: 'team Sales' });

      await one.client.setLoggingLevel('warning');
      await one.client.callTool({ name: 'a__log', arguments: { level: 'info' } });
      await one.client.callTool({ name: 'b__log', arguments: { level: 'error' } });
      await until('log', () => one.logs.length > 0);
      assert.deepEqual(one.logs, [{ level: 'error', data: 'from b', logger: 'b/core' }]);
    } finally {
      await one.close();
    }
  });

  it(
    "a server's protocol error reaches the agent as it would straight from the server",
    T,
    async () => {
      const one = await agent(h, 'one', 'file:///one');
      const direct = new Client({ name: 'direct', version: '1.0.0' });
      const [a, b] = InMemoryTransport.createLinkedPair();
      const server = richServer('a');
      await server.connect(b);
      await direct.connect(a);
      try {
        const failure = async (p: Promise<unknown>) => {
          try {
            await p;
          } catch (err) {
            const e = err as { code: number; message: string };
            return { code: e.code, message: e.message };
          }
          return assert.fail('expected an error');
        };
        const straight = await failure(direct.getPrompt({ name: 'team', arguments: {} }));
        const through = await failure(one.client.getPrompt({ name: 'a__team', arguments: {} }));
        assert.equal(straight.code, -32602);
        assert.deepEqual(through, straight);
      } finally {
        await direct.close();
        await server.close();
        await one.close();
      }
    },
  );

  it('joins nothing it should not: a removed server answers with why, never hangs', T, async () => {
    const one = await agent(h, 'one', 'file:///one');
    try {
      assert.equal(
        textOf(await one.client.callTool({ name: 'a__work', arguments: { steps: 0 } })),
        'a worked 0',
      );
      h.write(h.files.user, servers({ b: { command: 'rich', args: ['b'] } }));
      await until(
        'a gone',
        async () => !(await one.client.listTools()).tools.some((t) => t.name === 'a__work'),
      );
      const gone = (await one.client.callTool({
        name: 'a__work',
        arguments: { steps: 0 },
      })) as CallToolResult;
      assert.equal(gone.isError, true);
      assert.match(textOf(gone), /a was removed/);
      await assert.rejects(
        one.client.readResource({ uri: 'static://a/readme' }),
        /no server of this session/,
      );
    } finally {
      await one.close();
    }
  });
});
