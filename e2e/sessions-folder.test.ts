/**
 * e2e: one folder, the quick start's daemon and an agent's plain `mcpctl serve` (issue 33).
 * The daemon is started as `npm start` starts it (`--workspace`, `--mcp-config`,
 * `--lsp-config`); an agent runs `mcpctl serve` with no flag at all in that folder, in an
 * environment of its own. It sees the folder's configuration (the `files` server, the
 * language server's `lsp_*` tools); the CLI in the folder says there are two sessions and
 * selects the agent's with `--session`, shows both with `-A`; a decision made there reaches
 * both; `get sessions` names the agent program (its clientInfo), escaped when hostile; an
 * opener with its own `--mcp-config` keeps exactly its own.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ConnectionList, McpServerList, SessionList, SessionObject } from '../cli/objects.js';
import { CLI, TestEnv, isReady, untilTools } from './harness.js';
import { fakeEntry } from './lsp-agent.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };
const SESSION = 'mcpctl.dev/session';

describe('one folder: the daemon, an agent’s plain serve and the CLI (e2e)', () => {
  let env: TestEnv;
  const clients: Client[] = [];
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    await env.cleanup();
  });

  /** `mcpctl serve` with no flag, cwd the folder, as an agent's config runs it. */
  async function plainServe(name: string, extraEnv: Record<string, string>, args: string[] = []) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', ...args],
      env: env.env(extraEnv) as Record<string, string>,
      cwd: env.workspace,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name, version: '2.0.1' });
    clients.push(client);
    await client.connect(transport);
    env.trackPid(transport.pid ?? undefined);
    return { client, stderr: () => stderr };
  }

  async function sessions(): Promise<SessionObject[]> {
    return (await env.json<SessionList>(['get', 'sessions', '-o', 'json'])).items;
  }

  /** The quick start: a `files` server and a language server given to the daemon by flags. */
  async function quickStart() {
    const mcpFile = path.join(env.root, 'mcp-config.json');
    const lspFile = path.join(env.root, 'lsp-config.json');
    env.write(mcpFile, { mcpServers: { files: env.filesystemServer(env.workspace) } });
    env.write(lspFile, { fake: fakeEntry(env) });
    // A project server: gated, so the CLI's decision is what lets it run.
    env.write(env.mcpJsonPath, { mcpServers: { memory: env.memoryServer() } });
    await env.startDaemon(['--mcp-config', mcpFile, '--lsp-config', lspFile]);
  }

  it(
    "a plain serve sees the folder's servers and language server; --session, -A, one decision for both",
    T,
    async () => {
      await quickStart();
      const agent = await plainServe('claude-code', { AGENT_TOKEN: 'agent-b' });
      const tools = await untilTools(
        agent.client,
        "the folder's files tools and lsp_* tools",
        (names) =>
          names.some((n) => n.startsWith('files__')) && names.some((n) => n.startsWith('lsp_')),
        { timeoutMs: 60_000, stderr: agent.stderr },
      );
      assert.ok(tools.includes('lsp_definition'), tools.join(', '));

      const all = await until('two sessions of the folder', async () => {
        const s = await sessions();
        return s.length === 2 ? s : undefined;
      });
      const theirs = all.find((s) => s.status.agents.some((a) => a.clientInfo?.name));
      assert.ok(theirs, 'the agent’s session lists its clientInfo');
      assert.notEqual(theirs.metadata.name, 'default');
      assert.deepEqual(theirs.status.agents[0]?.clientInfo, {
        name: 'claude-code',
        version: '2.0.1',
      });
      const dflt = all.find((s) => s.metadata.name === 'default');
      assert.equal(theirs.spec.mcpConfig, dflt?.spec.mcpConfig, "the folder's --mcp-config");
      assert.equal(theirs.spec.lspConfig, dflt?.spec.lspConfig, "the folder's --lsp-config");
      const wide = await env.cli(['get', 'sessions', '-o', 'wide']);
      assert.match(wide.stdout, /CLIENTS/);
      assert.match(wide.stdout, /claude-code\/2\.0\.1/);

      // The CLI in the folder, no flag: the session the agent there holds (what it sees), and a
      // line on stderr only, saying what sets the two apart.
      const plain = await env.cli(['get', 'servers']);
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(
        plain.stderr,
        new RegExp(
          `this folder has 2 sessions .*they differ in whose environment it is .*showing ${theirs.metadata.name}.*--session.*-A`,
        ),
      );
      assert.doesNotMatch(plain.stdout, /sessions/);
      assert.doesNotMatch(plain.stderr, /agent-b/, 'no value of the environment');

      // --session with a prefix of the agent's: its servers (its own connectionIds).
      const prefix = theirs.metadata.name.slice(0, -2);
      const picked = await env.json<McpServerList>([
        'get',
        'servers',
        '--session',
        prefix,
        '-o',
        'json',
      ]);
      const allServers = await env.json<McpServerList>(['get', 'servers', '-A', '-o', 'json']);
      const idIn = (list: McpServerList, name: string, session?: string) =>
        list.items.find(
          (s) =>
            s.metadata.name === name &&
            (session === undefined || s.metadata.annotations?.[SESSION] === session),
        )?.status.connectionId;
      assert.ok(idIn(picked, 'files'));
      assert.equal(idIn(picked, 'files'), idIn(allServers, 'files', theirs.metadata.name));
      assert.notEqual(idIn(picked, 'files'), idIn(allServers, 'files', 'default'));
      const shownByDefault = await env.json<McpServerList>(['get', 'servers', '-o', 'json']);
      assert.equal(idIn(shownByDefault, 'files'), idIn(picked, 'files'));
      const quiet = await env.cli(['get', 'servers', '--session', prefix]);
      assert.doesNotMatch(quiet.stderr, /this folder has/, 'chosen: nothing to say');
      // -A: both sessions' objects, each saying whose; a table with a SESSION column.
      const sessionsOf = new Set(allServers.items.map((s) => s.metadata.annotations?.[SESSION]));
      assert.deepEqual([...sessionsOf].sort(), ['default', theirs.metadata.name].sort());
      const table = await env.cli(['get', 'languageservers', '-A']);
      assert.match(table.stdout, /^SESSION +NAME/);
      assert.match(table.stdout, new RegExp(`${theirs.metadata.name} +fake`));
      const why = await env.cli(['why', 'memory', '-A']);
      assert.equal(why.code, 0, why.stderr);
      assert.equal(why.stdout.match(/PendingApproval/g)?.length, 2, why.stdout);

      const events = await env.json<{ items: Array<{ metadata?: { annotations?: object } }> }>([
        'get',
        'events',
        '-A',
        '-o',
        'json',
      ]);
      assert.ok(events.items.length > 0);
      assert.ok(events.items.every((e) => SESSION in (e.metadata?.annotations ?? {})));
      // Every session command takes --session: describe, wait, diff act on the agent's.
      const described = await env.cli(['describe', 'server', 'files', '--session', prefix]);
      assert.equal(described.code, 0, described.stderr);
      assert.ok(described.stdout.includes(idIn(picked, 'files') ?? '?'), described.stdout);
      const waited = await env.cli([
        'wait',
        'languageserver/fake',
        '--for=condition=Ready',
        '--session',
        prefix,
      ]);
      assert.equal(waited.code, 0, waited.stderr);
      const diff = await env.cli(['diff', '--session', prefix]);
      assert.equal(diff.code, 0, diff.stderr);
      assert.doesNotMatch(diff.stderr, /this folder has/);

      // An unknown --session: exit 1, naming the sessions there are.
      const unknown = await env.cli(['get', 'servers', '--session', 'nope']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no session named nope; the sessions there are: .*default/);
      const both = await env.cli(['get', 'servers', '-A', '--session', prefix]);
      assert.equal(both.code, 2, '-A and --session exclude each other');

      // One decision, made in the folder, reaches both sessions (they watch the approvals file).
      const approve = await env.cli(['approve', 'memory']);
      assert.equal(approve.code, 0, approve.stderr);
      await until('memory Ready in both sessions', async () => {
        const list = await env.json<McpServerList>([
          'get',
          'servers',
          'memory',
          '-A',
          '-o',
          'json',
        ]);
        return list.items.length === 2 && list.items.every((s) => isReady(s));
      });
      await untilTools(agent.client, "the agent's memory tools", (names) =>
        names.some((n) => n.startsWith('memory__')),
      );
    },
  );

  it(
    "two agents that differ only in their terminals' variables share one session and its processes; another token is another session, said by name",
    T,
    async () => {
      await quickStart();
      const first = await plainServe('claude-code', {
        AGENT_TOKEN: 'same',
        SHLVL: '2',
        TERM_SESSION_ID: 'w0t0:1111',
        CLAUDECODE: '1',
        OLDPWD: '/somewhere',
      });
      const second = await plainServe('gemini-cli', {
        AGENT_TOKEN: 'same',
        SHLVL: '5',
        WINDOWID: '4242',
        GEMINI_CLI: '1',
        TERM_PROGRAM: 'vscode',
      });
      const untilFiles = (a: Awaited<ReturnType<typeof plainServe>>) =>
        untilTools(a.client, 'the files tools', (n) => n.some((t) => t.startsWith('files__')), {
          timeoutMs: 60_000,
          stderr: a.stderr,
        });
      for (const a of [first, second]) await untilFiles(a);
      const all = await until('the default session and one agent session', async () => {
        const s = await sessions();
        const agents = s.filter((x) => x.status.agents.length > 0);
        return s.length === 2 && agents.length === 1 && agents[0].status.agents.length === 2
          ? s
          : undefined;
      });
      const shared = all.find((s) => s.status.agents.length > 0)!;
      assert.deepEqual(shared.status.agents.map((a) => a.clientInfo?.name).sort(), [
        'claude-code',
        'gemini-cli',
      ]);
      // One session, so one `files` process for both agents (and the daemon's session's own).
      const conns = await env.json<ConnectionList>(['get', 'connections', '-o', 'json']);
      const files = conns.items.filter((c) => c.spec.server === 'files');
      assert.equal(files.length, 2, JSON.stringify(files.map((c) => c.status.sessions)));
      assert.ok(
        files.some((c) => c.status.sessions.includes(shared.metadata.name)),
        "the agents' session holds one",
      );

      const third = await plainServe('qwen-code', { AGENT_TOKEN: 'other-token-value' });
      await untilFiles(third);
      await until('three sessions', async () =>
        (await sessions()).length === 3 ? true : undefined,
      );
      const line = await env.cli(['get', 'servers', '--workspace', env.workspace]);
      assert.equal(line.code, 0, line.stderr);
      assert.match(line.stderr, /this folder has 3 sessions .*the environment \(AGENT_TOKEN\)/);
      assert.doesNotMatch(line.stderr, /other-token-value|same/, 'names, never values');
      assert.doesNotMatch(line.stderr, /SHLVL|WINDOWID|CLAUDECODE/);
    },
  );

  it(
    'a hostile client name is escaped; an opener with its own --mcp-config keeps exactly its own',
    T,
    async () => {
      await quickStart();
      const own = path.join(env.root, 'own.json');
      env.write(own, { mcpServers: { mine: env.fixture('mine') } });
      const hostile = 'evil\u001b]0;pwned\u0007\u001b[2J\u202egnp.exe';
      const agent = await plainServe(hostile, { AGENT_TOKEN: 'c' }, ['--mcp-config', own]);
      const tools = await untilTools(
        agent.client,
        'its own server',
        (names) => names.some((n) => n.startsWith('mine__')),
        { timeoutMs: 60_000, stderr: agent.stderr },
      );
      assert.equal(tools.filter((n) => n.startsWith('files__')).length, 0, 'no folder file');
      assert.equal(
        tools.filter((n) => n.startsWith('lsp_')).length,
        0,
        'no folder language server',
      );
      const mine = (await sessions()).find((s) => s.spec.mcpConfig?.endsWith('own.json'));
      assert.ok(mine);
      assert.equal(mine.spec.lspConfig, null);

      const wide = await env.cli(['get', 'sessions', '-o', 'wide']);
      assert.equal(wide.code, 0, wide.stderr);
      assert.doesNotMatch(wide.stdout, /[\u001b\u0007\u202e]/, 'nothing raw reaches the terminal');
      assert.ok(wide.stdout.includes('evil\\x1b]0;pwned'), wide.stdout);
      assert.ok(wide.stdout.includes('\\u202e'), wide.stdout);
      const json = await env.cli(['get', 'sessions', '-o', 'json']);
      assert.doesNotMatch(json.stdout, /[\u001b\u0007\u202e]/);
      const parsed = JSON.parse(json.stdout) as SessionList;
      assert.ok(
        parsed.items.some((s) => s.status.agents.some((a) => a.clientInfo?.name === hostile)),
        'json carries the exact name in its own escapes',
      );
    },
  );
});
