/**
 * Compare with the real thing beyond server-everything: one scripted session of tool calls
 * against server-filesystem and server-memory (npm packages no one here wrote), run straight at
 * each server and then through `mcpctl serve`, from the same starting state, and compared step
 * by step: the tool lists (names prefixed, nothing else different) and every result, including
 * structured content and errors, exactly.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TestEnv } from './harness.js';
import { until } from '../testing/until.js';
import { listAll } from './gateway-agent.js';
import { messageOf } from '../api/index.js';

const T = { timeout: 120_000 };

interface Step {
  readonly server: 'files' | 'memory';
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/** The session: every call's result is compared; `dir` is the one folder files may touch. */
function script(dir: string): Step[] {
  const f = (tool: string, args: Record<string, unknown>): Step => ({
    server: 'files',
    tool,
    args,
  });
  const m = (tool: string, args: Record<string, unknown>): Step => ({
    server: 'memory',
    tool,
    args,
  });
  const a = path.join(dir, 'a.txt');
  return [
    f('list_allowed_directories', {}),
    f('write_file', { path: a, content: 'one\ntwo\nthree\n' }),
    f('read_text_file', { path: a }),
    f('read_text_file', { path: a, head: 2 }),
    f('edit_file', { path: a, edits: [{ oldText: 'two', newText: 'deux' }], dryRun: true }),
    f('edit_file', { path: a, edits: [{ oldText: 'two', newText: 'deux' }] }),
    f('create_directory', { path: path.join(dir, 'sub', 'deeper') }),
    f('write_file', { path: path.join(dir, 'sub', 'b.md'), content: '# b\n' }),
    f('list_directory', { path: dir }),
    f('directory_tree', { path: dir }),
    f('search_files', { path: dir, pattern: '*.md' }),
    f('move_file', { source: a, destination: path.join(dir, 'sub', 'a.txt') }),
    f('read_multiple_files', { paths: [path.join(dir, 'sub', 'a.txt'), path.join(dir, 'gone')] }),
    // Errors: outside the allowed folder, and a file that is not there.
    f('read_text_file', { path: path.join(path.dirname(dir), 'outside.txt') }),
    f('read_text_file', { path: path.join(dir, 'missing.txt') }),
    m('create_entities', {
      entities: [
        { name: 'mcpctl', entityType: 'tool', observations: ['keeps MCP servers live'] },
        { name: 'agent', entityType: 'program', observations: [] },
      ],
    }),
    m('create_relations', { relations: [{ from: 'agent', to: 'mcpctl', relationType: 'uses' }] }),
    m('add_observations', {
      observations: [{ entityName: 'agent', contents: ['reads config files'] }],
    }),
    m('search_nodes', { query: 'config' }),
    m('open_nodes', { names: ['mcpctl', 'nobody'] }),
    m('delete_observations', {
      deletions: [{ entityName: 'mcpctl', observations: ['keeps MCP servers live'] }],
    }),
    m('read_graph', {}),
    m('delete_entities', { entityNames: ['agent'] }),
    m('read_graph', {}),
    // An error: observations for an entity that does not exist.
    m('add_observations', { observations: [{ entityName: 'nobody', contents: ['x'] }] }),
  ];
}

interface Session {
  readonly tools: Record<string, Tool[]>;
  readonly results: unknown[];
}

/** Runs the script; `call(step)` makes one call the way this half makes it. */
async function run(
  steps: readonly Step[],
  tools: Record<string, Tool[]>,
  call: (step: Step) => Promise<unknown>,
): Promise<Session> {
  const results: unknown[] = [];
  for (const step of steps) {
    try {
      results.push(await call(step));
    } catch (err) {
      // A protocol error is a result too: both halves must fail the same way.
      results.push({ thrown: messageOf(err) });
    }
  }
  return { tools, results };
}

describe('the same session straight and through mcpctl serve: server-filesystem, server-memory', () => {
  let env: TestEnv;
  let dir: string;
  let memoryFile: string;

  /** Both halves start from here: an empty folder, no memory file. */
  function resetState(): void {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    rmSync(memoryFile, { force: true });
  }

  before(() => {
    env = new TestEnv();
    dir = path.join(env.root, 'files');
    memoryFile = env.memoryServer().env.MEMORY_FILE_PATH ?? '';
    assert.notEqual(memoryFile, '');
  });

  after(async () => {
    await env.stopDaemon();
    await env.cleanup();
  });

  it('gives equal tool lists and equal results, call by call', T, async () => {
    const configs = { files: env.filesystemServer(dir), memory: env.memoryServer() };
    const steps = script(dir);

    // Straight: one client per server, as an agent without mcpctl runs them.
    resetState();
    const directClients: Record<string, Client> = {};
    let direct: Session;
    try {
      const tools: Record<string, Tool[]> = {};
      for (const [name, c] of Object.entries(configs)) {
        const client = new Client({ name: 'parity', version: '1.0.0' }, { capabilities: {} });
        await client.connect(
          new StdioClientTransport({
            command: c.command,
            args: c.args,
            env: { ...(env.env() as Record<string, string>), ...('env' in c ? c.env : {}) },
            cwd: env.workspace,
            stderr: 'ignore',
          }),
        );
        directClients[name] = client;
        tools[name] = await listAll(async (cursor) => {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          return { items: page.tools, nextCursor: page.nextCursor };
        });
      }
      direct = await run(steps, tools, (s) =>
        directClients[s.server].callTool({ name: s.tool, arguments: s.args }),
      );
    } finally {
      for (const client of Object.values(directClients)) await client.close();
    }

    // Through mcpctl: both servers in the user's settings, one serve.
    resetState();
    env.write(env.userSettingsPath, { mcpServers: configs });
    const client = new Client({ name: 'parity', version: '1.0.0' }, { capabilities: {} });
    const { transport } = env.serveTransport();
    let through: Session;
    try {
      await client.connect(transport);
      env.trackPid(transport.pid ?? undefined);
      const all = async () =>
        listAll(async (cursor) => {
          const page = await client.listTools(cursor === undefined ? {} : { cursor });
          return { items: page.tools, nextCursor: page.nextCursor };
        });
      const expected = Object.values(direct.tools).flat().length;
      let listed: Tool[] = [];
      await until(
        `both servers' ${expected} tools through serve`,
        async () => (listed = await all()).length === expected,
        { timeoutMs: 60_000 },
      );
      const tools: Record<string, Tool[]> = {};
      for (const server of Object.keys(configs)) {
        const prefix = `${server}__`;
        tools[server] = listed
          .filter((t) => t.name.startsWith(prefix))
          .map((t) => ({ ...t, name: t.name.slice(prefix.length) }));
      }
      through = await run(steps, tools, (s) =>
        client.callTool({ name: `${s.server}__${s.tool}`, arguments: s.args }),
      );
    } finally {
      await client.close();
    }

    assert.deepEqual(through.tools, direct.tools, 'the tool lists, names unprefixed');
    assert.equal(through.results.length, steps.length);
    steps.forEach((step, i) => {
      assert.deepEqual(
        through.results[i],
        direct.results[i],
        `step ${i + 1}: ${step.server} ${step.tool}`,
      );
    });
    // The script did reach both servers' real behaviour, errors included.
    const texts = JSON.stringify(direct.results);
    assert.match(texts, /deux/);
    assert.match(texts, /reads config files/);
    assert.ok(
      direct.results.some((r) => (r as { isError?: boolean }).isError === true),
      'some steps are errors',
    );
  });
});
