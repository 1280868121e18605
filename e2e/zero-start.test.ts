/**
 * e2e: start on demand, stop when idle (issue #34), against the BUILT daemon, CLI and
 * `mcpctl serve` in a temporary HOME, with a short `--idle-stop`:
 * - five servers start for the first agent (never seen: their catalogs are learned), idle out
 *   and stop; a second agent lists the same tools with no server process; a call starts
 *   exactly that one server and answers; `get servers` and `get connections` say Idle, `why`
 *   says what starts it;
 * - a config change is never served from the old config's catalog;
 * - a server that lists another tool set when it starts again: the agent hears list_changed and
 *   gets the new list;
 * - a subscription or a call in flight keeps a server from idling, while another one idles out;
 * - the catalogs survive a daemon restart (its first agent starts nothing to list); a catalog
 *   file that is not private to the user is not used, and the server starts as if never seen.
 */
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '../api/index.js';
import { TestEnv, condition, processesMentioning, untilTools } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };
const IDLE = ['--idle-stop', '700ms'];
const NAMES = ['s1', 's2', 's3', 's4', 's5'];

const idle = (s: McpServer | undefined) => condition(s, 'Ready')?.reason === 'Idle';
const running = (s: McpServer | undefined) => condition(s, 'Ready')?.reason === 'Connected';

describe('zero-start views: start on demand, stop when idle (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  /** Live processes of server `name` (its argv names its pid file). */
  const processesOf = (name: string) => processesMentioning(env.pidFile(name));
  const allProcesses = () => NAMES.flatMap(processesOf);

  /** The five servers; `tools` overrides a server's tools (default `echo,sleep`). */
  function writeServers(tools: Record<string, string> = {}): void {
    env.write(env.userSettingsPath, {
      mcpServers: Object.fromEntries(
        NAMES.map((n) => [n, env.fixture(n, [`--tools=${tools[n] ?? 'echo,sleep'}`])]),
      ),
    });
  }

  it(
    'the first agent starts all five; they idle out; a second agent lists them with no process, and a call starts exactly one',
    T,
    async () => {
      writeServers();
      await env.startDaemon(IDLE);
      const first = await env.serveClient();
      const listed = (await untilTools(first.client, 'ten tools', (n) => n.length === 10)).sort();
      await env.untilServers(
        (m) => NAMES.every((n) => idle(m.get(n))),
        'every server Idle after its idle time',
      );
      await until('every server process to end', () => allProcesses().length === 0, {
        timeoutMs: 10_000,
      });
      await first.close();

      const second = await env.serveClient();
      const tools = (await second.client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(tools, listed, 'the same tools, from the catalogs');
      assert.deepEqual(allProcesses(), [], 'listing started no server');

      const table = await env.cli(['get', 'servers']);
      assert.match(table.stdout, /s3\s+user\s+True\s+Idle\s+2\s/, table.stdout);
      const why = await env.json<{ reason: string; action: string }>(['why', 's3', '-o', 'json']);
      assert.equal(why.reason, 'Idle');
      assert.match(why.action, /call.*starts it/);
      const idleRows = await env.cli(['get', 'connections']);
      assert.match(idleRows.stdout, /Idle/, idleRows.stdout);

      const answer = await second.client.callTool({ name: 's3__echo', arguments: { x: 1 } });
      const text = (answer.content as { type: string; text: string }[])[0]?.text ?? '';
      assert.deepEqual((JSON.parse(text) as { args: unknown }).args, { x: 1 });
      assert.equal(processesOf('s3').length, 1, 's3 runs');
      assert.deepEqual(
        NAMES.filter((n) => n !== 's3').flatMap(processesOf),
        [],
        'no other server started',
      );
      const after = await env.servers();
      assert.ok(running(after.get('s3')), 's3 Connected');
      assert.ok(idle(after.get('s1')), 's1 still Idle');
      await second.close();
    },
  );

  it(
    'a changed config is not served from the old catalog: it starts and lists anew',
    T,
    async () => {
      writeServers();
      await env.startDaemon(IDLE);
      const agent = await env.serveClient();
      await untilTools(agent.client, 'ten tools', (n) => n.length === 10);
      const before = await env.untilServers((m) => idle(m.get('s5')), 's5 Idle');
      writeServers({ s5: 'other' });
      const after = await env.untilServers(
        (m) =>
          m.get('s5')?.status.connectionId !== before.get('s5')?.status.connectionId &&
          (running(m.get('s5')) || idle(m.get('s5'))) &&
          m.get('s5')?.status.tools.includes('other') === true,
        's5 listed from its new config',
      );
      assert.deepEqual(after.get('s5')?.status.tools, ['other']);
      const names = await untilTools(agent.client, 's5_other listed', (n) =>
        n.includes('s5__other'),
      );
      assert.ok(!names.includes('s5__echo'), 'the old catalog is gone');
      await agent.close();
    },
  );

  it(
    'a server that lists another tool set when it starts again: list_changed and the new list',
    T,
    async () => {
      const toolsFile = path.join(env.root, 'tools.txt');
      writeFileSync(toolsFile, 'first,second');
      env.write(env.userSettingsPath, {
        mcpServers: { s1: env.fixture('s1', [`--tools-file=${toolsFile}`]) },
      });
      await env.startDaemon(IDLE);
      const agent = await env.serveClient();
      await untilTools(agent.client, 'first listed', (n) => n.includes('s1__first'));
      await env.untilServers((m) => idle(m.get('s1')), 's1 Idle');
      await until('s1 to end', () => processesOf('s1').length === 0, { timeoutMs: 10_000 });
      writeFileSync(toolsFile, 'first');
      let changed = 0;
      agent.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed += 1;
      });
      await agent.client.callTool({ name: 's1__echo', arguments: {} });
      await until('list_changed', () => changed > 0, { timeoutMs: 10_000 });
      // (A tool added is held by its pins until accepted, e2e/security-pins; one gone goes.)
      const names = await untilTools(agent.client, 'second gone', (n) => !n.includes('s1__second'));
      assert.deepEqual(names, ['s1__echo', 's1__first']);
      await agent.close();
    },
  );

  it(
    'a subscription and a call in flight keep their servers running while another server idles out',
    T,
    async () => {
      env.write(env.userSettingsPath, {
        mcpServers: {
          sub: env.fixture('sub', ['--resource=fixture://r', '--tools=touch']),
          busy: env.fixture('busy', ['--tools=sleep']),
          quiet: env.fixture('quiet', ['--tools=echo']),
        },
      });
      await env.startDaemon(IDLE);
      const agent = await env.serveClient();
      await untilTools(agent.client, 'three tools', (n) => n.length === 3);
      // As an agent does: it lists the resources, then subscribes to one.
      const resources = await agent.client.listResources();
      assert.ok(resources.resources.some((r) => r.uri === 'fixture://r'));
      await agent.client.subscribeResource({ uri: 'fixture://r' });
      const call = agent.client.callTool(
        { name: 'busy__sleep', arguments: { ms: 4000 } },
        undefined,
        {
          timeout: 30_000,
        },
      );
      // quiet was last used before the other two: once it idled out, theirs has passed too.
      await env.untilServers((m) => idle(m.get('quiet')), 'quiet Idle');
      await until('quiet to end', () => processesOf('quiet').length === 0, { timeoutMs: 10_000 });
      const now = await env.servers();
      assert.ok(running(now.get('sub')), 'the subscribed server runs');
      assert.ok(running(now.get('busy')), 'the server with a call in flight runs');
      await call;
      const touched = await agent.client.callTool({ name: 'sub__touch', arguments: {} });
      const text = (touched.content as { text: string }[])[0]?.text ?? '';
      assert.equal((JSON.parse(text) as { args: { subscribed: boolean } }).args.subscribed, true);
      await agent.client.unsubscribeResource({ uri: 'fixture://r' });
      await env.untilServers((m) => idle(m.get('sub')), 'sub Idle once unsubscribed');
      await agent.close();
    },
  );

  it('catalogs survive a daemon restart; one not private to the user is not used', T, async () => {
    writeServers();
    const daemon = await env.startDaemon(IDLE);
    const agent = await env.serveClient();
    const listed = (await untilTools(agent.client, 'ten tools', (n) => n.length === 10)).sort();
    await agent.close();
    await env.untilServers((m) => NAMES.every((n) => idle(m.get(n))), 'all Idle');
    assert.equal((await env.cli(['stop'])).code, 0);
    await daemon.exited;
    const dir = `${env.socket}.catalogs`;
    const files = readdirSync(dir);
    assert.equal(files.length, 5, 'one catalog per connection');
    const pids = () => NAMES.map((n) => readFileSync(env.pidFile(n), 'utf8'));
    const before = pids();
    // Others may write it: not trusted; its server starts as if never seen.
    const loose = path.join(dir, files[0] ?? '');
    chmodSync(loose, 0o666);
    const next = await env.startDaemon(IDLE);
    const agent2 = await env.serveClient();
    const tools = (await agent2.client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(tools, listed);
    await until(
      'the loose catalog to be learned anew, private',
      () => (statSync(loose).mode & 0o777) === 0o600,
      {
        timeoutMs: 20_000,
      },
    );
    const changed = pids().filter((p, i) => p !== before[i]);
    assert.equal(changed.length, 1, 'exactly the server of the loose catalog started');
    assert.match(next.stderr(), /catalog was not used: others may read or write it/);
    await agent2.close();
  });

  it(
    'a gated server is never started on demand once its approval is gone; calls racing the idle stop are all served',
    T,
    async () => {
      env.write(env.mcpJsonPath, { mcpServers: { proj: env.fixture('proj') } });
      env.write(env.userSettingsPath, { mcpServers: { s1: env.fixture('s1') } });
      await env.startDaemon(['--idle-stop', '60ms']);
      assert.equal((await env.cli(['approve', 'proj'])).code, 0);
      const agent = await env.serveClient();
      await untilTools(agent.client, 'both listed', (n) => n.length === 2);
      // Calls whose gaps straddle the idle time: each one either finds it running or starts it.
      for (let i = 0; i < 25; i++) {
        const answer = await agent.client.callTool({ name: 's1__echo', arguments: { i } });
        assert.notEqual(answer.isError, true, `call ${i} served`);
        await new Promise((resolve) => setTimeout(resolve, (i * 7) % 90));
      }
      await env.untilServers((m) => idle(m.get('proj')), 'proj Idle');
      await until('proj to end', () => processesOf('proj').length === 0, { timeoutMs: 10_000 });
      const pid = readFileSync(env.pidFile('proj'), 'utf8');
      assert.equal((await env.cli(['reject', 'proj'])).code, 0);
      await untilTools(agent.client, 'proj gone', (n) => n.length === 1);
      const refused = await agent.client.callTool({ name: 'proj__echo', arguments: {} });
      assert.equal(refused.isError, true, 'a call to the rejected server is refused');
      assert.equal(readFileSync(env.pidFile('proj'), 'utf8'), pid, 'it never started again');
      assert.deepEqual(processesOf('proj'), []);
      await agent.close();
    },
  );
});
