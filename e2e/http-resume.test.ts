/**
 * e2e (issue #26): an SDK client over the daemon's HTTP endpoint loses its GET stream, the
 * daemon sends a notification while it is gone, and the client comes back with Last-Event-ID:
 * the notification arrives, once.
 *
 * The stream is cut by the client's own fetch (an abort, as a network drop looks to it), and
 * its reconnect is held back until the notification was sent: a second client in the same
 * workspace, whose stream stays up, says when (both get the session's list_changed at once).
 * A later change is the barrier: a duplicate of the first would come before it.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestEnv } from './harness.js';
import { httpTransport, startHttpDaemon } from './http-agent.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };

/** A client that counts tools/list_changed. */
function countingClient(name: string): { client: Client; changed: () => number } {
  const client = new Client({ name, version: '1.0.0' });
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed += 1;
  });
  return { client, changed: () => changed };
}

describe('HTTP resumability: Last-Event-ID after a lost stream (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('the notification sent while the stream was gone arrives once', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { one: env.fixture('one') } });
    const http = await startHttpDaemon(env);

    // The client's GET streams: each one's Last-Event-ID, the abort of the live one, a gate.
    const gets: (string | null)[] = [];
    let live: AbortController | undefined;
    let streamOpen = false;
    const held: { gate?: Promise<void> } = {};
    let openGate: () => void = () => undefined;
    const fetchFn = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      if (init?.method !== 'GET') return fetch(url, init);
      gets.push(new Headers(init.headers).get('last-event-id'));
      if (held.gate) await held.gate;
      const abort = new AbortController();
      init.signal?.addEventListener('abort', () => abort.abort());
      live = abort;
      const response = await fetch(url, { ...init, signal: abort.signal });
      streamOpen = response.ok;
      return response;
    };
    const gap = countingClient('gap');
    const errors: string[] = [];
    gap.client.onerror = (err) => errors.push(err.message);
    await gap.client.connect(
      httpTransport(http, {
        fetch: fetchFn,
        reconnectionOptions: {
          initialReconnectionDelay: 10,
          maxReconnectionDelay: 100,
          reconnectionDelayGrowFactor: 1,
          maxRetries: 5,
        },
      }),
    );
    const control = countingClient('control');
    await control.client.connect(httpTransport(http));
    await until('the tool of server one', async () =>
      (await gap.client.listTools()).tools.some((t) => t.name === 'one__echo'),
    );
    await until('the GET stream to be open', () => streamOpen);

    // Cut the stream; the client tries again at once, and waits at the gate.
    held.gate = new Promise((resolve) => (openGate = resolve));
    streamOpen = false;
    live?.abort();
    await until('the client to try to reconnect', () => gets.length === 2);

    env.write(env.userSettingsPath, {
      mcpServers: { one: env.fixture('one'), two: env.fixture('two') },
    });
    await until('the control client to hear tools/list_changed', () => control.changed() === 1, {
      timeoutMs: 30_000,
    });
    assert.equal(gap.changed(), 0, 'nothing reached the client while its stream was gone');

    openGate();
    await until('the gap client to hear it after reconnecting', () => gap.changed() >= 1);
    assert.ok(gets[1], 'the reconnect carried Last-Event-ID');

    // The barrier: one more change; a duplicate of the first would have come before it.
    env.write(env.userSettingsPath, { mcpServers: { one: env.fixture('one') } });
    await until('both clients to hear the second change', () => control.changed() === 2, {
      timeoutMs: 30_000,
    });
    await until('the gap client to hear the second change', () => gap.changed() >= 2);
    assert.equal(gap.changed(), 2, 'the notification sent in the gap arrived exactly once');
    assert.ok(
      errors.every((e) => /SSE stream disconnected/.test(e)),
      `no error but the cut itself: ${errors.join('; ')}`,
    );
    await gap.client.close();
    await control.client.close();
  });
});
