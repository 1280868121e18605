/**
 * e2e (issue 22, M4; issue 31, item 7): one answer over a message limit must not kill a shared
 * server, nor the agent's session.
 *
 * Two agents (`mcpctl serve`, an SDK client each, reading as the SDK does by default: at most
 * 10 MiB a message) share one server-filesystem through the daemon. At once, one reads a 12 MB
 * file (server-filesystem sends the text twice, so its answer is some 24 MB, over the 16 MiB
 * limit of a server's message) and the other a 4 MB one (an 8 MB answer: under the 9 MiB an
 * agent's stdio takes). The first gets a clear size error naming the limit, the second its
 * file, whole; the server's process is the same one afterwards, still serving both, and a
 * Warning event `MessageTooLarge` names it.
 *
 * An answer under the server limit but over what an agent reads on stdio (a 6 MB file read: 12
 * MB) fails that call alone with the size error; the agent's session (its serve, its other
 * servers) goes on. Before, serve passed it on and the agent's SDK dropped the connection:
 * every server behind mcpctl gone for that agent.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TestEnv, isAlive, processesMentioning } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };
const MB = 1000 * 1000;
const CALL = { timeout: 60_000 };

interface Connection {
  status: { state: string; pid: number | null };
  spec: { server: string };
}

interface EventItem {
  type: string;
  reason: string;
  message: string;
  involvedObject: string;
}

/**
 * An agent on `mcpctl serve`, its SDK reading as it does by default (at most 10 MiB a message),
 * once it sees `tool`; `closed()` says whether its connection ended.
 */
async function agent(
  env: TestEnv,
  name: string,
  tool = 'fs__read_text_file',
): Promise<{ client: Client; stderr: () => string; closed: () => boolean; pid: number | null }> {
  const { transport, stderr } = env.serveTransport();
  const client = new Client({ name, version: '1.0.0' });
  let closed = false;
  client.onclose = () => (closed = true);
  await client.connect(transport);
  env.trackPid(transport.pid ?? undefined);
  await until(
    () => `${name} to see ${tool} (serve: ${stderr()})`,
    async () => (await client.listTools()).tools.some((t) => t.name === tool),
    { timeoutMs: 30_000 },
  );
  return { client, stderr, closed: () => closed, pid: transport.pid };
}

function read(client: Client, file: string): Promise<CallToolResult> {
  return client.callTool(
    { name: 'fs__read_text_file', arguments: { path: file } },
    undefined,
    CALL,
  ) as Promise<CallToolResult>;
}

async function fsConnection(env: TestEnv): Promise<Connection | undefined> {
  const list = await env.json<{ items: Connection[] }>(['get', 'connections', '-o', 'json']);
  return list.items.find((c) => c.spec.server === 'fs');
}

describe('an answer over the message limit (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'fails only the request it answers; the shared server and the other agent go on',
    T,
    async () => {
      const files = path.join(env.root, 'files');
      mkdirSync(files);
      const dir = realpathSync(files);
      const huge = path.join(dir, 'huge.txt');
      const large = path.join(dir, 'large.txt');
      const small = path.join(dir, 'small.txt');
      writeFileSync(huge, 'h'.repeat(12 * MB));
      writeFileSync(large, 'l'.repeat(4 * MB));
      writeFileSync(small, 'still here');
      env.write(env.userSettingsPath, { mcpServers: { fs: env.filesystemServer(files) } });

      const a = await agent(env, 'agent-a');
      const b = await agent(env, 'agent-b');
      try {
        const before = await fsConnection(env);
        assert.equal(before?.status.state, 'Ready');
        const pid = before?.status.pid;
        assert.ok(typeof pid === 'number' && pid > 0, 'one shared stdio process');

        const [tooLarge, allowed] = await Promise.allSettled([
          read(a.client, huge),
          read(b.client, large),
        ]);

        assert.equal(tooLarge.status, 'rejected', 'the huge read fails');
        const error = tooLarge.status === 'rejected' ? (tooLarge.reason as McpError) : undefined;
        assert.ok(error instanceof McpError, String(error));
        assert.equal(error.code, -32005);
        assert.match(
          error.message,
          /answer of fs exceeded the 16 MiB message limit \(22\.\d MiB\)/,
        );

        assert.equal(
          allowed.status,
          'fulfilled',
          `the large read: ${String(allowed.status === 'rejected' ? allowed.reason : '')}`,
        );
        const text = allowed.status === 'fulfilled' ? allowed.value.content[0] : undefined;
        assert.equal(text?.type === 'text' ? text.text.length : -1, 4 * MB, 'the whole file');

        // The same process serves both agents still.
        const after = await fsConnection(env);
        assert.equal(after?.status.pid, pid, 'the server was not restarted');
        assert.equal(after?.status.state, 'Ready');
        for (const client of [a.client, b.client]) {
          const again = await read(client, small);
          const first = again.content[0];
          assert.equal(first?.type === 'text' ? first.text : '', 'still here');
        }

        const events = await until(
          'a MessageTooLarge event',
          async () => {
            const list = await env.json<{ items: EventItem[] }>(['get', 'events', '-o', 'json']);
            const found = list.items.filter((e) => e.reason === 'MessageTooLarge');
            return found.length > 0 ? found : undefined;
          },
          { timeoutMs: 15_000 },
        );
        assert.equal(events[0]?.type, 'Warning');
        assert.equal(events[0]?.involvedObject, 'server/fs');
        assert.match(events[0]?.message ?? '', /an answer over the 16 MiB message limit/);
        const lost = await env.json<{ items: EventItem[] }>(['get', 'events', '-o', 'json']);
        assert.deepEqual(
          lost.items.filter((e) => e.reason === 'Disconnected' || e.reason === 'Restarted'),
          [],
          'no connection was lost',
        );
      } finally {
        await a.client.close();
        await b.client.close();
        await env.cli(['stop'], { timeoutMs: 30_000 });
        await until('the daemon to end', () => processesMentioning(env.socket).length === 0, {
          timeoutMs: 10_000,
        }).catch(() => undefined);
      }
    },
  );
  it(
    "an answer over what the agent's stdio reads fails that call only; the session goes on",
    T,
    async () => {
      const files = path.join(env.root, 'files');
      mkdirSync(files);
      const big = path.join(realpathSync(files), 'big.txt');
      // Sent twice by server-filesystem: some 12 MB, under the 16 MiB a server may send.
      writeFileSync(big, 'b'.repeat(6 * MB));
      env.write(env.userSettingsPath, {
        mcpServers: { fs: env.filesystemServer(files), fx: env.fixture('fx') },
      });
      const a = await agent(env, 'agent-a', 'fx__echo');
      try {
        await until('fs__read_text_file', async () =>
          (await a.client.listTools()).tools.some((t) => t.name === 'fs__read_text_file'),
        );
        await assert.rejects(read(a.client, big), (err: unknown) => {
          assert.ok(err instanceof McpError, String(err));
          assert.equal(err.code, -32005, err.message);
          assert.match(
            err.message,
            /the answer to this request is 11\.\d MiB, over the 9 MiB message limit; mcpctl dropped it: ask for less at a time/,
          );
          return true;
        });
        // The same session, on another server and on the same one: nothing reconnected.
        const echo = (await a.client.callTool(
          { name: 'fx__echo', arguments: { value: 7 } },
          undefined,
          CALL,
        )) as CallToolResult;
        const first = echo.content[0];
        assert.match(first?.type === 'text' ? first.text : '', /"value":7/);
        assert.equal(a.closed(), false, `the agent's connection stays (serve: ${a.stderr()})`);
        assert.ok(a.pid !== null && isAlive(a.pid), 'the same serve runs');
      } finally {
        await a.client.close();
        await env.cli(['stop'], { timeoutMs: 30_000 });
      }
    },
  );
});
