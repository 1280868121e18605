/**
 * e2e (issue 22, M4): one answer over the message limit must not kill a shared server.
 *
 * Two agents (`mcpctl serve`, an SDK client each) share one server-filesystem through the
 * daemon. At once, one reads a 12 MB file (server-filesystem sends the text twice, so its answer
 * is some 24 MB, over the 16 MiB limit) and the other an 8 MB one (a 16 MB answer: under the
 * limit, though over the SDK's 10 MiB default). The first gets a clear size error naming the
 * limit, the second its file, whole; the server's process is the same one afterwards, still
 * serving both, and a Warning event `MessageTooLarge` names it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_BYTES } from '../api/index.js';
import { CLI, TestEnv, processesMentioning } from './harness.js';
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

/** An agent on `mcpctl serve` whose reader takes messages up to mcpctl's limit. */
async function agent(
  env: TestEnv,
  name: string,
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--workspace', env.workspace, '--debounce-ms', '50'],
    env: env.env() as Record<string, string>,
    cwd: env.workspace,
    stderr: 'pipe',
    // The SDK reads at most 10 MiB per message by default; this agent takes what mcpctl sends.
    maxBufferSize: MAX_MESSAGE_BYTES + 1024 * 1024,
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  env.trackPid(transport.pid ?? undefined);
  await until(
    () => `${name} to see fs__read_text_file (serve: ${stderr})`,
    async () => (await client.listTools()).tools.some((t) => t.name === 'fs__read_text_file'),
    { timeoutMs: 30_000 },
  );
  return { client, stderr: () => stderr };
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
      writeFileSync(large, 'l'.repeat(8 * MB));
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
        assert.equal(text?.type === 'text' ? text.text.length : -1, 8 * MB, 'the whole file');

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
});
