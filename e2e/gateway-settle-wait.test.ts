/**
 * e2e: agents behind a server stuck in `initialize` (issue 22, L5), through the built
 * `mcpctl serve` and daemon. An agent's connect and first tools/list wait for servers that are
 * still connecting, so its first listing is complete; that wait is bounded, and it is one wait:
 * not once at connect and again at the first tools/list, and not again for every agent while the
 * session has not settled since.
 *
 * Timing: the assertions compare with the daemon's own wait (FIRST_LIST_WAIT_MS, 5 s): a step
 * that waited again takes at least that long; one that did not takes a small part of it.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { FIRST_LIST_WAIT_MS } from '../cli/agent/gateway.js';
import { TestEnv, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };

/** How long `step` took, in ms, with its result. */
async function timed<R>(step: () => Promise<R>): Promise<{ ms: number; value: R }> {
  const start = performance.now();
  const value = await step();
  return { ms: performance.now() - start, value };
}

describe('the settle wait behind a server stuck in initialize (e2e)', () => {
  let env: TestEnv;
  const clients: Client[] = [];
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    await env.cleanup();
  });

  async function agent(): Promise<Client> {
    const { transport } = env.serveTransport();
    const client = new Client({ name: 'settle', version: '1.0.0' }, { capabilities: {} });
    clients.push(client);
    await client.connect(transport);
    env.trackPid(transport.pid ?? undefined);
    return client;
  }

  it(
    'an agent waits once (connect and first tools/list together), and the next agent not again',
    T,
    async (t) => {
      env.write(env.userSettingsPath, {
        mcpServers: {
          ok: env.fixture('ok'),
          // Stuck for the whole test: its initialize never answers, and it is not given up on.
          stuck: {
            ...env.fixture('stuck', ['--hang-before-initialize']),
            discoveryTimeoutMs: 600_000,
          },
        },
      });
      await env.startDaemon();
      await env.untilServers((m) => isReady(m.get('ok')), 'ok Ready');
      await until('the stuck server to start', () => existsSync(env.pidFile('stuck')));
      const half = FIRST_LIST_WAIT_MS / 2;

      // The first agent waits for the session (bounded): at connect...
      const first = await timed(agent);
      // ...and not again at its first listing.
      const firstList = await timed(() => first.value.listTools());
      assert.deepEqual(
        firstList.value.tools.map((t) => t.name),
        ['ok__echo'],
        'the servers that are Ready are listed',
      );
      assert.ok(
        firstList.ms < half,
        `the first tools/list waited again (${Math.round(firstList.ms)} ms; the wait is ${FIRST_LIST_WAIT_MS} ms)`,
      );

      // The session has not settled since: the next agent does not wait for it again.
      const second = await timed(agent);
      const secondList = await timed(() => second.value.listTools());
      assert.deepEqual(
        secondList.value.tools.map((t) => t.name),
        ['ok__echo'],
      );
      t.diagnostic(
        `connect, first tools/list: agent 1 ${Math.round(first.ms)}, ${Math.round(firstList.ms)} ms; agent 2 ${Math.round(second.ms)}, ${Math.round(secondList.ms)} ms`,
      );
      assert.ok(
        second.ms < half,
        `the second agent's connect waited again (${Math.round(second.ms)} ms; the wait is ${FIRST_LIST_WAIT_MS} ms)`,
      );
      assert.ok(
        secondList.ms < half,
        `the second agent's first tools/list waited again (${Math.round(secondList.ms)} ms; the wait is ${FIRST_LIST_WAIT_MS} ms)`,
      );
    },
  );
});
