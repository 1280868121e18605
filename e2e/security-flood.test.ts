/**
 * e2e (issue 13, finding 10): one misbehaving stdio server must not slow every agent.
 *
 * A daemon (started by `mcpctl serve`, with an SDK client as the agent) serves a quiet fixture
 * and a flooding one that (1) sends notifications/message in a tight loop, (2) writes garbage
 * lines to stdout in a tight loop, or (3) changes its tool list every 10 ms. In each case: the
 * agent receives a bounded number of tools/list_changed, the daemon answers `get servers`, a
 * Warning event and the Ready condition's message name the flooding server, and the quiet
 * server keeps working. No latency figure is asserted (see bench/flood.ts for numbers).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerList } from '../api/index.js';
import { TestEnv, condition, isReady, processesMentioning } from './harness.js';
import { until } from '../testing/until.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 90_000 };
/** The window over which list_changed are counted, and the bound: 5 per second, generous. */
const WINDOW_MS = 2000;
const MAX_LIST_CHANGED = 10;

interface EventItem {
  type: string;
  reason: string;
  message: string;
  involvedObject: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const MODES: readonly { name: string; args: string[] }[] = [
  { name: 'sends notifications/message in a tight loop', args: ['--flood-notifications'] },
  { name: 'writes garbage lines to stdout in a tight loop', args: ['--flood-garbage'] },
  { name: 'changes its tool list every 10 ms', args: ['--churn-tools=10'] },
];

describe('a flooding server (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  for (const mode of MODES) {
    it(`a server that ${mode.name} is contained and named`, T, async () => {
      env.write(env.userSettingsPath, {
        mcpServers: {
          quiet: env.fixture('quiet', ['--tools=echo']),
          flood: env.fixture('flood', mode.args),
        },
      });
      const { transport, stderr: stderrOf } = env.serveTransport();
      const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
      let listChanged = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        listChanged += 1;
      });
      await client.connect(transport);
      env.trackPid(transport.pid ?? undefined);
      try {
        await until(
          `both servers' tools (serve stderr: ${stderrOf()})`,
          async () => {
            const names = (await client.listTools()).tools.map((t) => t.name);
            return names.includes('quiet__echo') && names.some((n) => n.startsWith('flood__'));
          },
          { timeoutMs: 30_000 },
        );

        // The agent hears of changes, but only a few per second whatever the server does.
        const before = listChanged;
        await sleep(WINDOW_MS);
        const heard = listChanged - before;
        assert.ok(
          heard <= MAX_LIST_CHANGED,
          `${heard} tools/list_changed in ${WINDOW_MS} ms (at most ${MAX_LIST_CHANGED})`,
        );

        // The daemon answers, and the flooding server is named: a Warning event and Ready.
        const events = await until(
          'a Warning event with reason Flooding',
          async () => {
            const r = await env.cli(['get', 'events', '-o', 'json'], { timeoutMs: 30_000 });
            assert.equal(r.code, 0, r.stderr);
            const items = (JSON.parse(r.stdout) as { items: EventItem[] }).items;
            const flooding = items.filter((e) => e.type === 'Warning' && e.reason === 'Flooding');
            return flooding.length > 0 ? flooding : undefined;
          },
          { timeoutMs: 30_000 },
        );
        assert.deepEqual(
          [...new Set(events.map((e) => e.involvedObject))],
          ['server/flood'],
          JSON.stringify(events),
        );
        assert.match(events[0].message, /flood/);

        const r = await env.cli(['get', 'servers', '-o', 'json'], { timeoutMs: 30_000 });
        assert.equal(r.code, 0, `get servers answers: ${r.stderr}`);
        const servers = new Map(
          (JSON.parse(r.stdout) as McpServerList).items.map((s) => [s.metadata.name, s]),
        );
        assert.ok(isReady(servers.get('quiet')), 'the quiet server is Ready');
        assert.doesNotMatch(condition(servers.get('quiet'), 'Ready')?.message ?? '', /degraded/);
        assert.match(
          condition(servers.get('flood'), 'Ready')?.message ?? '',
          /degraded: /,
          'the Ready message says the flooding server misbehaves',
        );

        // The other server keeps working, through the same daemon and agent.
        const echo = await client.callTool({ name: 'quiet__echo', arguments: { n: 1 } });
        assert.deepEqual((JSON.parse(textOf(echo)) as { tool: string; args: unknown }).args, {
          n: 1,
        });
      } finally {
        await client.close();
        await env.cli(['stop'], { timeoutMs: 30_000 });
        await until('the daemon to end', () => processesMentioning(env.socket).length === 0, {
          timeoutMs: 10_000,
        }).catch(() => undefined);
      }
    });
  }
});
