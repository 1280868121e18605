/**
 * e2e (issue 31): a config file that does not parse is visible wherever a user or an agent
 * looks. With a file broken while the daemon runs, every command that shows the session warns
 * on stderr (stdout stays the table or the JSON) that the file is held at its last good
 * content, naming the file, the line and the fix; `describe` shows the session's conditions;
 * `reload` and `diff` exit 1. A daemon started on a broken file logs it, says the file was never
 * read and its servers are missing, `why NAME` says where the server may be, and an agent is
 * told in its instructions and by `mcpctl_find_tools`. For settings.json and language-server
 * files alike.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpServerList, SessionList } from '../cli/objects.js';
import { until } from '../testing/until.js';
import { TestEnv, isReady } from './harness.js';
import { fakeEntry, lspReady, untilLanguageServers } from './lsp-agent.js';

const T = { timeout: 120_000 };

/** A settings file cut short after its first server: line 3 misses its closing brace. */
function brokenSettings(server: string, config: { command: string; args: string[] }): string {
  return `{\n  "mcpServers": {\n    "${server}": ${JSON.stringify(config)}\n    "late": { "command": "x" }\n  }\n}\n`;
}

async function configValid(env: TestEnv): Promise<{ status: string; message: string }> {
  const list = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
  const c = list.items[0]?.status.conditions.find((x) => x.type === 'ConfigValid');
  return { status: c?.status ?? 'missing', message: c?.message ?? '' };
}

describe('a broken config file is visible (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cli(['stop']);
    await env.cleanup();
  });

  it('broken while the daemon runs: every command warns; reload and diff exit 1', T, async () => {
    const file = env.userSettingsPath;
    env.write(file, { mcpServers: { fx: env.fixture('fx') } });
    const lspFile = path.join(env.root, 'lsp.json');
    env.write(lspFile, { fake: fakeEntry(env) });
    await env.startDaemon(['--lsp-config', lspFile]);
    await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
    await untilLanguageServers(env, 'fake Ready', (m) => lspReady(m.get('fake')));

    env.write(file, brokenSettings('fx', env.fixture('fx')));
    env.write(lspFile, '{ "fake": { "command": "x", } ');
    await until('ConfigValid=False for both files', async () => {
      const c = await configValid(env);
      return c.status === 'False' && c.message.includes(lspFile) ? c : undefined;
    });
    const held = new RegExp(
      `^warning: ${file}:4:5: syntax error: expected "," between two entries; add the missing comma; until the file is fixed, its servers are as it was last read$`,
      'm',
    );
    const heldLsp = new RegExp(
      `^warning: ${lspFile}:1:\\d+: .*until the file is fixed, its language servers are as it was last read$`,
      'm',
    );

    const table = await env.cli(['get', 'servers']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^fx\s/m, 'the servers are the last good ones');
    assert.match(table.stderr, held);
    assert.match(table.stderr, heldLsp);
    const json = await env.cli(['get', 'servers', '-o', 'json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(
      (JSON.parse(json.stdout) as McpServerList).items.map((s) => s.metadata.name),
      ['fx'],
      'stdout stays JSON',
    );
    assert.match(json.stderr, held);
    for (const args of [
      ['get', 'lsp'],
      ['why', 'fx'],
      ['get', 'events'],
    ]) {
      const r = await env.cli(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, held, args.join(' '));
    }
    const sessions = await env.cli(['get', 'sessions']);
    assert.match(
      sessions.stderr,
      /^warning: session default \(.*\): .*settings\.json:4:5: syntax error/m,
    );

    const described = await env.cli(['describe', 'server', 'fx']);
    assert.equal(described.code, 0, described.stderr);
    assert.match(described.stdout, /Session Conditions:/);
    assert.match(described.stdout, /ConfigValid\s+False\s+.*ParseError/);
    assert.ok(described.stdout.includes(`${file}:4:5`), described.stdout);

    for (const args of [['reload'], ['diff']]) {
      const r = await env.cli(args);
      assert.equal(r.code, 1, `${args.join(' ')} exits 1: ${r.stdout} ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^error: ${file}:4:5: syntax error`, 'm'));
      assert.match(r.stderr, new RegExp(`^error: ${lspFile}:1:`, 'm'));
      assert.doesNotMatch(r.stdout, /no changes/);
    }

    env.write(file, { mcpServers: { fx: env.fixture('fx') } });
    env.write(lspFile, { fake: fakeEntry(env) });
    const fixed = await env.cli(['reload']);
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.doesNotMatch(fixed.stderr, /warning|error/);
    const after = await env.cli(['get', 'servers']);
    assert.equal(after.stderr, '', 'no warning once the files are fixed');
  });

  it(
    'started on broken files: logged, servers missing, why says where, the agent is told',
    T,
    async () => {
      const file = env.userSettingsPath;
      env.write(file, brokenSettings('mem', env.fixture('mem')));
      const lspFile = path.join(env.root, 'lsp.json');
      env.write(lspFile, '{ "ts": { "command": "tsls" ');
      const daemon = await env.startDaemon(['--lsp-config', lspFile]);
      await until('the daemon to log both files', () =>
        daemon.stderr().includes(file) && daemon.stderr().includes(lspFile) ? true : undefined,
      );
      const logged = daemon
        .stderr()
        .split('\n')
        .filter((l) => l.includes(file));
      assert.ok(
        logged.some((l) => /"level":40/.test(l) && /was never read/.test(l)),
        `a warning naming the file:\n${logged.join('\n')}`,
      );

      const never = new RegExp(
        `^warning: ${file}:4:5: syntax error: .*; the file was never read, so its servers are missing until it is fixed$`,
        'm',
      );
      const table = await env.cli(['get', 'servers']);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stderr, /^No servers found\.$/m);
      assert.match(table.stderr, never);
      const why = await env.cli(['why', 'mem']);
      assert.equal(why.code, 1);
      assert.match(why.stderr, /no server named mem in this session/);
      assert.match(
        why.stderr,
        new RegExp(`it may be in ${file}, which does not parse or validate`),
      );
      const lsp = await env.cli(['get', 'lsp']);
      assert.match(
        lsp.stderr,
        new RegExp(
          `^warning: ${lspFile}:1:\\d+: .*the file was never read, so its language servers are missing`,
          'm',
        ),
      );
      const whyLsp = await env.cli(['why', 'languageserver/ts']);
      assert.equal(whyLsp.code, 1);
      assert.match(whyLsp.stderr, new RegExp(`it may be in ${lspFile}`));

      // The agent: its instructions and mcpctl_find_tools say why it has no tools.
      const { transport, stderr } = env.serveTransport({ args: ['--meta-tools'] });
      const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
      try {
        await client.connect(transport);
        env.trackPid(transport.pid ?? undefined);
        const instructions = client.getInstructions() ?? '';
        assert.ok(instructions.includes(file), `instructions name the file:\n${instructions}`);
        assert.match(instructions, /never read, so its servers are missing/);
        const found = await client.callTool({ name: 'mcpctl_find_tools', arguments: {} });
        const content = found.structuredContent as { tools: unknown[]; configErrors?: string[] };
        assert.deepEqual(content.tools.length, 0);
        assert.ok(
          content.configErrors?.some((e) => e.includes(file)),
          `find_tools names the file: ${JSON.stringify(content)}; ${stderr()}`,
        );
      } finally {
        await client.close();
      }
    },
  );
});
