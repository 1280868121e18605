/**
 * e2e (issue 13, finding 8): two servers whose naive `server__tool` names collide.
 *
 * Server `x` offers tool `y__z` and server `x__y` offers tool `z`; joined with `__` both are
 * `x__y__z`, and a call went to whichever server won. Through the built `mcpctl serve` (with
 * its daemon) each visible name must call its own server, and prompts likewise.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { TestEnv, processesMentioning } from './harness.js';
import { until } from '../testing/until.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 60_000 };

describe('tool names (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('x + y__z and x__y + z: each visible name reaches its own server', T, async () => {
    env.write(env.userSettingsPath, {
      mcpServers: {
        x: env.fixture('x', ['--tools=y__z', '--prompt=y__p']),
        x__y: env.fixture('x__y', ['--tools=z', '--prompt=p']),
      },
    });
    const { transport, stderr: stderrOf } = env.serveTransport();
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await client.connect(transport);
    env.trackPid(transport.pid ?? undefined);
    try {
      const tools = await until(
        `the tools of both servers (serve stderr: ${stderrOf()})`,
        async () => {
          const names = (await client.listTools()).tools.map((t) => t.name);
          return names.length === 2 ? names : undefined;
        },
        { timeoutMs: 30_000 },
      );
      assert.equal(new Set(tools).size, 2, `two distinct names: ${tools.join(', ')}`);
      for (const name of tools) assert.match(name, /^[A-Za-z0-9_-]{1,64}$/);
      assert.ok(tools.includes('x__y__z'), 'the unambiguous pair keeps the readable form');

      const answers = new Map<string, { tool: string; pid: number }>();
      for (const name of tools) {
        const result = await client.callTool({ name, arguments: {} });
        assert.notEqual((result as CallToolResult).isError, true, textOf(result));
        answers.set(name, JSON.parse(textOf(result)) as { tool: string; pid: number });
      }
      const pidOf = (server: string) => Number(readFileSync(env.pidFile(server), 'utf8').trim());
      const readable = answers.get('x__y__z');
      const other = [...answers.entries()].find(([n]) => n !== 'x__y__z')?.[1];
      assert.deepEqual(
        { tool: readable?.tool, pid: readable?.pid },
        { tool: 'y__z', pid: pidOf('x') },
      );
      assert.deepEqual({ tool: other?.tool, pid: other?.pid }, { tool: 'z', pid: pidOf('x__y') });

      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      assert.equal(new Set(prompts).size, 2, `two distinct prompt names: ${prompts.join(', ')}`);
      const texts = new Set<string>();
      for (const name of prompts) {
        const got: GetPromptResult = await client.getPrompt({ name, arguments: {} });
        const content = got.messages[0]?.content;
        texts.add(content?.type === 'text' ? content.text : '');
      }
      assert.deepEqual([...texts].sort(), ['prompt p about nothing', 'prompt y__p about nothing']);
    } finally {
      await client.close();
      await env.cli(['stop'], { timeoutMs: 30_000 });
      await until('the daemon to end', () => processesMentioning(env.socket).length === 0, {
        timeoutMs: 10_000,
      }).catch(() => undefined);
    }
  });
});
