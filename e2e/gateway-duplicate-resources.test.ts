/**
 * e2e (issue #14, "resources"; DESIGN §4 rule 1): two servers of different scopes list the same
 * resource URIs. `low` is the paging fixture in the user settings (scope `user`, the lowest);
 * `high` is the fixture in a `--mcp-config` file passed to `mcpctl serve` (scope `cli`, the
 * highest). Each fixture's read says which one answered (`--label`).
 *
 * - resources/list through serve shows every URI once; a URI both list is served by `high`, a
 *   URI only `low` lists by `low` (even though a template of `high` matches it), a URI nobody
 *   lists by the higher-precedence template.
 * - `mcpctl get events` shows one Warning `DuplicateResource` per shared URI, on `server/low`,
 *   naming both servers and the URI; listing again does not record it again (count stays 1).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Resource, TextResourceContents } from '@modelcontextprotocol/sdk/types.js';
import type { EventList } from '../cli/objects.js';
import { TestEnv } from './harness.js';
import { until } from '../testing/until.js';
import {
  REQUEST_TIMEOUT_MS,
  RecordingAgent,
  connectThroughServe,
  listAll,
} from './gateway-agent.js';

const PAGING_SERVER = fileURLToPath(new URL('./fixtures/paging-server.js', import.meta.url));
const T = { timeout: 120_000 };
const R = { timeout: REQUEST_TIMEOUT_MS };
const SHARED = ['paging://item/000', 'paging://item/001', 'paging://item/002'];
const LOW_ONLY = ['paging://item/003', 'paging://item/004'];

/** The paging fixture as a config entry; its pid file puts the temp dir on its command line. */
function fixture(env: TestEnv, label: string, resources: number) {
  mkdirSync(path.dirname(env.pidFile(label)), { recursive: true });
  return {
    command: process.execPath,
    args: [
      PAGING_SERVER,
      `--pid-file=${env.pidFile(label)}`,
      `--label=${label}`,
      '--tools=1',
      `--resources=${resources}`,
    ],
  };
}

async function uris(agent: RecordingAgent): Promise<string[]> {
  const all = await listAll<Resource>(async (cursor) => {
    const r = await agent.client.listResources(cursor === undefined ? {} : { cursor }, R);
    return { items: r.resources, nextCursor: r.nextCursor };
  });
  return all.map((r) => r.uri);
}

async function readText(agent: RecordingAgent, uri: string): Promise<string | undefined> {
  const r = await agent.client.readResource({ uri }, R);
  return (r.contents[0] as TextResourceContents | undefined)?.text;
}

describe('the same resource URI from two servers, through mcpctl serve (e2e)', () => {
  let env: TestEnv;
  let agent: RecordingAgent | undefined;
  let second: RecordingAgent | undefined;
  beforeEach(() => {
    env = new TestEnv();
    agent = undefined;
    second = undefined;
  });
  afterEach(async () => {
    await agent?.close().catch(() => undefined);
    await second?.close().catch(() => undefined);
    await env.stopDaemon();
    await env.cleanup();
  });

  it(
    'each URI listed once, the higher scope serves it, one Warning event per duplicate URI',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { low: fixture(env, 'low', 5) } });
      const extra = path.join(env.root, 'extra-mcp.json');
      env.write(extra, { mcpServers: { high: fixture(env, 'high', 3) } });
      agent = new RecordingAgent({ label: 'dup' });
      await connectThroughServe(env, agent, { args: ['--mcp-config', extra] });
      const a = agent;
      // Both servers Ready: both tools listed.
      await until(
        'both servers to be listed',
        async () => {
          const names = (await a.client.listTools({}, R)).tools.map((t) => t.name);
          return names.includes('low__tool-000') && names.includes('high__tool-000');
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      ).catch((err: Error) => {
        throw new Error(`${err.message}; serve stderr: ${a.stderr()}`);
      });

      // Listed twice: the second listing must not record the warnings again.
      for (const n of [1, 2])
        assert.deepEqual(
          (await uris(a)).sort(),
          [...SHARED, ...LOW_ONLY],
          `listing ${n}: every URI once, not rewritten`,
        );

      // Both list the same templates: each is offered once.
      const templates = (await a.client.listResourceTemplates({}, R)).resourceTemplates.map(
        (t) => t.uriTemplate,
      );
      assert.ok(templates.length > 0);
      assert.deepEqual(templates, [...new Set(templates)], 'each template listed once');

      for (const uri of SHARED)
        assert.equal(await readText(a, uri), `${uri} (served by high)`, 'cli beats user');
      for (const uri of LOW_ONLY)
        assert.equal(await readText(a, uri), `${uri} (served by low)`, 'only low lists it');
      assert.equal(
        await readText(a, 'paging://note/x'),
        'paging://note/x (served by high)',
        "a URI nobody lists: the higher scope's matching template",
      );

      // A second agent of the same session sees the same duplicates: no new fact to record.
      second = new RecordingAgent({ label: 'dup-2' });
      await connectThroughServe(env, second, { args: ['--mcp-config', extra] });
      assert.deepEqual((await uris(second)).sort(), [...SHARED, ...LOW_ONLY]);
      assert.equal(await readText(second, SHARED[0]), `${SHARED[0]} (served by high)`);

      const events = await env.json<EventList>(['get', 'events', '-o', 'json']);
      const duplicates = events.items.filter((e) => e.reason === 'DuplicateResource');
      assert.deepEqual(
        duplicates
          .map((e) => ({
            type: e.type,
            object: e.involvedObject,
            count: e.count,
            uri: SHARED.find((u) => e.message.includes(JSON.stringify(u))),
          }))
          .sort((x, y) => String(x.uri).localeCompare(String(y.uri))),
        SHARED.map((uri) => ({ type: 'Warning', object: 'server/low', count: 1, uri })),
        `one Warning per shared URI, once: ${JSON.stringify(duplicates, null, 2)}`,
      );
      for (const e of duplicates) {
        assert.match(e.message, /"high"/, 'names the server that serves it');
        assert.match(e.message, /"low"/, 'names the server that lost');
      }
      const table = await env.cli(['get', 'events']);
      assert.equal(table.code, 0, table.stderr);
      const rows = table.stdout.split('\n').filter((l) => l.includes('DuplicateResource'));
      assert.equal(rows.length, SHARED.length, table.stdout);
      for (const row of rows) assert.match(row, /Warning.*server\/low/);
      assert.deepEqual(a.errors, []);
    },
  );
});
