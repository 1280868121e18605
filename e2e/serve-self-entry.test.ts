/**
 * e2e: the README's Qwen Code setup, where the agent's own `mcpctl serve --meta-tools` entry
 * sits in `~/.qwen/settings.json`, a file mcpctl reads too (issue 22, L7). mcpctl must not
 * offer anything through that entry: no `mcpctl__…` tool may reach the agent, neither a
 * proxied one nor the inner serve's own meta tools (a model that picks those finds no tools).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, TestEnv, condition, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

describe('the agent’s own mcpctl entry in a file mcpctl reads (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  /** A `mcpctl` on PATH that is a wrapper script (as some installs make it), not main.js. */
  function wrapperOnPath(): Record<string, string> {
    const bin = path.join(env.root, 'bin');
    mkdirSync(bin, { recursive: true });
    const wrapper = path.join(bin, 'mcpctl');
    writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    return { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
  }

  it(
    'the README entry `mcpctl serve --meta-tools` offers the agent no mcpctl__ tool',
    T,
    async () => {
      const pathEnv = wrapperOnPath();
      env.write(env.userSettingsPath, {
        mcpServers: {
          fx: env.fixture('fx', ['--tools=alpha']),
          mcpctl: { command: 'mcpctl', args: ['serve', '--meta-tools'] },
        },
      });
      // As the agent runs it: the same entry, so with the meta tools.
      const transport = new StdioClientTransport({
        command: 'mcpctl',
        args: ['serve', '--meta-tools', '--debounce-ms', '50'],
        env: env.env(pathEnv) as Record<string, string>,
        cwd: env.workspace,
        stderr: 'pipe',
      });
      let serveStderr = '';
      transport.stderr?.on('data', (c: Buffer) => (serveStderr += c.toString()));
      const stderr = () => serveStderr;
      const client = new Client({ name: 'e2e-agent', version: '1.0.0' }, { capabilities: {} });
      await client.connect(transport);
      env.trackPid(transport.pid ?? undefined);
      try {
        // Whatever mcpctl makes of its own entry, it has settled: fx is Ready and the entry
        // is either Ready (started, offering nothing) or refused for good.
        await env.untilServers((m) => {
          const self = condition(m.get('mcpctl'), 'Ready');
          return isReady(m.get('fx')) && self !== undefined && self.reason !== 'Connecting';
        }, 'fx Ready and the mcpctl entry settled');
        const names = await until('fx__alpha in the agent’s tools', async () => {
          const tools = (await client.listTools()).tools.map((t) => t.name);
          return tools.includes('fx__alpha') ? tools : undefined;
        });
        assert.deepEqual(
          names.filter((n) => n.startsWith('mcpctl__')),
          [],
          `no tool through the self entry; all: ${names.join(', ')}; serve: ${stderr()}`,
        );
        assert.ok(names.includes('mcpctl_find_tools'), 'the agent’s own meta tools are there');
        assert.ok(names.includes('mcpctl_call_tool'));
      } finally {
        await client.close();
        await env.cli(['stop']);
      }
    },
  );
});
