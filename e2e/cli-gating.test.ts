/**
 * e2e: admission inputs through the CLI — the ceiling flag against the settings allowlist,
 * `mcp.allowed: []`, and a broken settings file that changes nothing that runs.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { McpServer } from '../api/index.js';
import type { EventList, SessionList } from '../cli/objects.js';
import { TestEnv, condition, isAlive, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

interface WhyJson {
  reason: string;
  action: string;
}

const admitted = (m: Map<string, McpServer>, name: string) =>
  condition(m.get(name), 'Admitted')?.reason;

describe('mcpctl gating (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'the ceiling flag caps the settings allowlist; settings narrow it, never widen it',
    T,
    async () => {
      const mcpServers = { a: env.fixture('a'), b: env.fixture('b'), c: env.fixture('c') };
      env.write(env.userSettingsPath, { mcp: { allowed: ['a', 'b', 'c'] }, mcpServers });
      await env.startDaemon(['--allowed-mcp-server-names', 'a,b']);
      const first = await env.untilServers(
        (m) => isReady(m.get('a')) && isReady(m.get('b')) && admitted(m, 'c') === 'NotAllowed',
        'a, b Ready and c NotAllowed',
      );
      assert.equal(existsSync(env.pidFile('c')), false, 'c never started');
      const whyC = await env.json<WhyJson>(['why', 'c', '-o', 'json']);
      assert.equal(whyC.reason, 'NotAllowed');
      assert.match(whyC.action, /--allowed-mcp-server-names=a,b/);
      const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
      assert.deepEqual(sessions.items[0].spec.ceiling, ['a', 'b']);

      env.write(env.userSettingsPath, { mcp: { allowed: ['a'] }, mcpServers });
      const narrowed = await env.untilServers(
        (m) => admitted(m, 'b') === 'NotAllowed',
        'b narrowed out',
      );
      assert.equal(narrowed.get('a')!.status.pid, first.get('a')!.status.pid, 'a kept its process');
      await until('b to stop', () => !isAlive(first.get('b')!.status.pid!));
      const whyB = await env.json<WhyJson>(['why', 'b', '-o', 'json']);
      assert.equal(whyB.reason, 'NotAllowed');
      assert.match(whyB.action, /mcp\.allowed/);
    },
  );

  it('mcp.allowed: [] → every server NotAllowed, none started', T, async () => {
    env.write(env.userSettingsPath, {
      mcp: { allowed: [] },
      mcpServers: { a: env.fixture('a'), memory: env.memoryServer() },
    });
    env.write(env.mcpJsonPath, { mcpServers: { proj: env.fixture('proj') } });
    await env.startDaemon();
    const all = await env.untilServers(
      (m) => m.size === 3 && [...m.keys()].every((n) => admitted(m, n) === 'NotAllowed'),
      'every server NotAllowed',
    );
    for (const s of all.values()) assert.equal(s.status.pid, undefined);
    assert.equal(existsSync(env.pidFile('a')), false);
    assert.equal(existsSync(env.pidFile('proj')), false);
    const table = await env.cli(['get', 'servers']);
    assert.equal(table.stdout.match(/NotAllowed/g)?.length, 3);
  });

  it('invalid JSON: ConfigValid=False, servers keep running; fixing it recovers', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
    await env.startDaemon();
    const before = await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
    const pid = before.get('fx')!.status.pid;

    env.write(env.userSettingsPath, '{ "mcpServers": { "fx": {\n  "command": }\n');
    const configValid = async () =>
      (
        await env.json<SessionList>(['get', 'sessions', '-o', 'json'])
      ).items[0].status.conditions.find((c) => c.type === 'ConfigValid');
    const invalid = await until('ConfigValid=False', async () =>
      (await configValid())?.status === 'False' ? configValid() : undefined,
    );
    assert.equal(invalid.reason, 'ParseError');
    assert.ok(
      invalid.message?.includes(env.userSettingsPath),
      `names the file: ${invalid.message}`,
    );
    const during = await env.servers();
    assert.ok(isReady(during.get('fx')), 'fx still Ready');
    assert.equal(during.get('fx')!.status.pid, pid, 'same process');
    const events = await env.json<EventList>(['get', 'events', '-o', 'json']);
    assert.ok(events.items.some((e) => e.type === 'Warning' && e.reason === 'ConfigInvalid'));
    const table = await env.cli(['get', 'sessions']);
    assert.match(table.stdout, /default\s+\S+\s+False\s+True\s+1/);

    env.write(env.userSettingsPath, {
      mcpServers: { fx: env.fixture('fx'), fx2: env.fixture('fx2') },
    });
    await until('ConfigValid=True again', async () => (await configValid())?.status === 'True');
    const after = await env.untilServers((m) => isReady(m.get('fx2')), 'fx2 Ready after the fix');
    assert.equal(after.get('fx')!.status.pid, pid, 'fx never restarted');
  });
});
