/**
 * e2e paging through the gateway (issue #14, "pagination"): the paging fixture
 * (fixtures/paging-server.ts) configured in the user settings of a temp HOME (not gated), one
 * recording client through the built `mcpctl serve`, and the same client straight at the
 * fixture for comparison.
 *
 * - The gateway follows every `nextCursor` of the server: 250 tools and 250 resources served in
 *   pages of 100 all reach the agent, the 250th tool is callable and the 250th resource
 *   readable, URIs unchanged, each tool as the server described it (name prefixed).
 * - The gateway pages its merged lists to the agent (1000 per page): 1200 tools or resources
 *   come as a page of 1000 with a cursor of the gateway's own, then 200 without one; a forged
 *   cursor, or one of another list, is InvalidParams (-32602) saying to list again.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ErrorCode,
  McpError,
  type Resource,
  type TextResourceContents,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { TestEnv } from './harness.js';
import { until } from '../testing/until.js';
import {
  REQUEST_TIMEOUT_MS,
  RecordingAgent,
  connectThroughServe,
  listAll,
  textOf,
} from './gateway-agent.js';

const PAGING_SERVER = fileURLToPath(new URL('./fixtures/paging-server.js', import.meta.url));
const SERVER = 'pg';
const PREFIX = `${SERVER}__`;
const T = { timeout: 120_000 };
const R = { timeout: REQUEST_TIMEOUT_MS };
/** The gateway's page size to the agent (gateway.ts DEFAULT_PAGE_SIZE). */
const GATEWAY_PAGE = 1000;

/** The fixture's argv; its pid file puts the temp dir on its command line for cleanup. */
function pagingArgs(env: TestEnv, name: string, switches: readonly string[]): string[] {
  mkdirSync(path.dirname(env.pidFile(name)), { recursive: true });
  return [PAGING_SERVER, `--pid-file=${env.pidFile(name)}`, ...switches];
}

function numbered(prefix: string, n: number): string[] {
  const width = Math.max(3, String(n - 1).length);
  return Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(width, '0')}`);
}

const allTools = (agent: RecordingAgent) =>
  listAll<Tool>(async (cursor) => {
    const r = await agent.client.listTools(cursor === undefined ? {} : { cursor }, R);
    return { items: r.tools, nextCursor: r.nextCursor };
  });

const allResources = (agent: RecordingAgent) =>
  listAll<Resource>(async (cursor) => {
    const r = await agent.client.listResources(cursor === undefined ? {} : { cursor }, R);
    return { items: r.resources, nextCursor: r.nextCursor };
  });

/** The listing's items keyed (sorted) so a deepEqual diff names the missing or extra one. */
function byKey<I>(items: readonly I[], key: (i: I) => string): Record<string, I> {
  const out: Record<string, I> = {};
  for (const item of [...items].sort((a, b) => key(a).localeCompare(key(b)))) {
    assert.ok(!(key(item) in out), `${key(item)} is listed twice`);
    out[key(item)] = item;
  }
  return out;
}

/** What the same client sees straight at the fixture, with these switches. */
async function direct(
  env: TestEnv,
  switches: readonly string[],
): Promise<{ tools: Tool[]; resources: Resource[] }> {
  const agent = new RecordingAgent({ label: 'direct' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: pagingArgs(env, 'direct', switches),
    env: env.env() as Record<string, string>,
    cwd: env.workspace,
    stderr: 'pipe',
  });
  try {
    await agent.connect(transport);
    env.trackPid(transport.pid ?? undefined);
    return { tools: await allTools(agent), resources: await allResources(agent) };
  } finally {
    await agent.close();
  }
}

/** Lists through the gateway until the server's last tool is there (it starts in the daemon). */
async function untilListed(agent: RecordingAgent, lastTool: string): Promise<Tool[]> {
  let seen = 0;
  return until(
    `${PREFIX}${lastTool} to be listed`,
    async () => {
      const tools = await allTools(agent);
      seen = tools.length;
      return tools.some((t) => t.name === `${PREFIX}${lastTool}`) ? tools : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}; ${seen} tools listed; serve stderr: ${agent.stderr()}`);
  });
}

/** What a cursor of the fixture's kind says (base64url JSON `{list, offset}`), if it is one. */
function fixtureCursor(cursor: string): unknown {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return typeof decoded === 'object' && decoded !== null && 'list' in decoded
      ? decoded
      : undefined;
  } catch {
    return undefined;
  }
}

/** The error a request failed with (fails if it did not). */
async function failure(what: string, attempt: () => Promise<unknown>): Promise<McpError> {
  const err = await attempt().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof McpError, `${what}: expected an MCP error, got ${String(err)}`);
  return err;
}

describe('gateway paging through mcpctl serve (e2e)', () => {
  let env: TestEnv;
  let agent: RecordingAgent | undefined;
  beforeEach(() => {
    env = new TestEnv();
    agent = undefined;
  });
  afterEach(async () => {
    await agent?.close().catch(() => undefined);
    await env.stopDaemon();
    await env.cleanup();
  });

  it(
    'a server paging 250 tools and 250 resources by 100: all reach the agent, the last ones work',
    T,
    async () => {
      const switches = ['--tools=250', '--resources=250', '--page-size=100'];
      const straight = await direct(env, switches);
      // The fixture really pages (else this test proves nothing about following cursors).
      assert.equal(straight.tools.length, 250);
      assert.equal(straight.resources.length, 250);

      env.write(env.userSettingsPath, {
        mcpServers: {
          [SERVER]: { command: process.execPath, args: pagingArgs(env, SERVER, switches) },
        },
      });
      agent = new RecordingAgent({ label: 'paging' });
      await connectThroughServe(env, agent);
      const tools = await untilListed(agent, 'tool-249');

      assert.deepEqual(
        tools.map((t) => t.name).sort(),
        numbered(`${PREFIX}tool-`, 250),
        'exactly the 250 tools, each once, prefixed',
      );
      // Everything but the name as the server said it, and the same set as straight at it.
      assert.deepEqual(
        byKey(
          tools.map((t) => ({ ...t, name: t.name.slice(PREFIX.length) })),
          (t) => t.name,
        ),
        byKey(straight.tools, (t) => t.name),
      );

      const resources = await allResources(agent);
      assert.deepEqual(
        resources.map((r) => r.uri).sort(),
        numbered('paging://item/', 250),
        'exactly the 250 URIs, each once, not rewritten',
      );
      assert.deepEqual(
        byKey(resources, (r) => r.uri),
        byKey(straight.resources, (r) => r.uri),
      );

      // The 250th: what a proxy reading one page of the server would lose.
      const call = await agent.callTool(`${PREFIX}tool-249`, { k: 'v' });
      assert.notEqual(call.isError, true, textOf(call));
      assert.deepEqual(JSON.parse(textOf(call)), { tool: 'tool-249', args: { k: 'v' } });
      const read = await agent.client.readResource({ uri: 'paging://item/249' }, R);
      assert.deepEqual(read.contents, [
        { uri: 'paging://item/249', mimeType: 'text/plain', text: 'paging://item/249' },
      ]);
      assert.deepEqual(agent.errors, []);
    },
  );

  it(
    'the gateway pages 1200 tools and resources to the agent by 1000 with its own cursors; a forged one is -32602',
    T,
    async () => {
      const switches = ['--tools=1200', '--resources=1200', '--page-size=100'];
      const straight = await direct(env, switches);
      assert.equal(straight.tools.length, 1200);

      env.write(env.userSettingsPath, {
        mcpServers: {
          [SERVER]: { command: process.execPath, args: pagingArgs(env, SERVER, switches) },
        },
      });
      agent = new RecordingAgent({ label: 'big' });
      await connectThroughServe(env, agent);
      await untilListed(agent, 'tool-1199');
      const c = agent.client;

      const first = await c.listTools({}, R);
      assert.equal(first.tools.length, GATEWAY_PAGE, 'a first page of 1000');
      const cursor = first.nextCursor;
      assert.ok(typeof cursor === 'string' && cursor !== '', 'with a cursor');
      assert.equal(fixtureCursor(cursor), undefined, "the gateway's own cursor, not the server's");
      // Cursors the gateway did not issue for this list, tried before the real one is used:
      // the refusals change nothing, the issued cursor then reads the last page.
      const serverCursor = Buffer.from(JSON.stringify({ list: 'tools', offset: 100 })).toString(
        'base64url',
      );
      for (const [what, attempt] of [
        ['a forged tools cursor', () => c.listTools({ cursor: 'x' }, R)],
        ['a forged resources cursor', () => c.listResources({ cursor: 'x' }, R)],
        ["the server's own kind of cursor", () => c.listTools({ cursor: serverCursor }, R)],
        ['a tools cursor on resources/list', () => c.listResources({ cursor }, R)],
      ] as const) {
        const err = await failure(what, attempt);
        assert.equal(err.code, Number(ErrorCode.InvalidParams), `${what}: ${err.message}`);
        assert.match(err.message, /list again without a cursor/, what);
      }
      const second = await c.listTools({ cursor }, R);
      assert.equal(second.tools.length, 200);
      assert.equal(second.nextCursor, undefined, 'the last page has no cursor');
      const names = [...first.tools, ...second.tools].map((t) => t.name);
      assert.deepEqual(
        [...names].sort(),
        straight.tools.map((t) => `${PREFIX}${t.name}`).sort(),
        'the two pages: the 1200 tools of the server, each once',
      );

      const firstResources = await c.listResources({}, R);
      assert.equal(firstResources.resources.length, GATEWAY_PAGE);
      assert.ok(firstResources.nextCursor);
      const resources = await allResources(agent);
      assert.deepEqual(
        resources.map((r) => r.uri).sort(),
        straight.resources.map((r) => r.uri).sort(),
        'every resource once, URIs unchanged',
      );
      const read = await c.readResource({ uri: 'paging://item/1199' }, R);
      assert.equal(
        (read.contents[0] as TextResourceContents | undefined)?.text,
        'paging://item/1199',
      );

      assert.deepEqual(agent.errors, []);
    },
  );
});
