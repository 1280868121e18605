/**
 * e2e attack: terminal escape sequences from a hostile repository (server names in `.mcp.json`)
 * and from a malicious MCP server (tool names, stderr). No human output of mcpctl may carry
 * them raw; `-o json` / `-o yaml` carry them exactly, in their formats' escapes.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import type { McpServer } from '../api/index.js';
import type { McpServerList, SessionList } from '../cli/objects.js';
import { TestEnv, condition, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };
/** An OSC 52 clipboard write, a screen clear, an 8-bit CSI and a bidi override. */
const OSC52 = 'x\u001b]52;c;SGVsbG8=\u0007y';
const CLEAR = 'a\u001b[2Jb';
const C1 = 'c\u009b2Jd';
const BIDI = 'e\u202ef';
/** What must never reach a terminal raw (checked on the decoded text). */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('security: terminal escapes (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('names, tool names and stderr never reach the terminal raw', T, async () => {
    const tools = ['ok', `t${OSC52}`, `t${CLEAR}`, `t${C1}`, `t${BIDI}`];
    env.write(env.userSettingsPath, {
      mcpServers: {
        tooly: env.fixture('tooly', [`--tools=${tools.join(',')}`]),
        crashy: env.fixture('crashy', ['--exit-at-start', `--stderr=boom ${CLEAR}|${OSC52}`]),
      },
    });
    env.write(env.mcpJsonPath, {
      mcpServers: { [OSC52]: env.fixture('n1'), [CLEAR]: env.fixture('n2') },
    });
    await env.startDaemon();
    const servers = await env.untilServers(
      (m) => isReady(m.get('tooly')) && condition(m.get('crashy'), 'Ready')?.status === 'False',
      'tooly Ready, crashy failed',
    );
    // -o json carries the malicious server's tool names exactly. A name with such a character
    // cannot be escaped for the agent (it is what the agent calls), so its pin holds it until
    // the user accepts it (issue #35); the object lists it as held.
    const offered = (s: McpServer | undefined) =>
      [...(s?.status.tools ?? []), ...(s?.status.held ?? []).map((h) => h.name)].sort();
    assert.deepEqual(servers.get('tooly')?.status.tools, ['ok']);
    assert.deepEqual(
      (servers.get('tooly')?.status.held ?? []).map((h) => h.change),
      ['unshown', 'unshown', 'unshown', 'unshown'],
    );
    assert.deepEqual(offered(servers.get('tooly')), [...tools].sort());
    const yaml = await env.cli(['get', 'servers', '-o', 'yaml']);
    const fromYaml = parseYaml(yaml.stdout) as McpServerList;
    assert.deepEqual(
      offered(fromYaml.items.find((s) => s.metadata.name === 'tooly')),
      [...tools].sort(),
    );
    assert.doesNotMatch(yaml.stdout.replace(/\n/g, ''), RAW, 'yaml escapes them itself');

    // The names are refused by validation, with a message that names the file and the fix.
    const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
    const valid = sessions.items[0]?.status.conditions.find((c) => c.type === 'ConfigValid');
    assert.equal(valid?.status, 'False');
    assert.match(valid?.message ?? '', /\.mcp\.json:\d+:\d+: mcpServers: the server name/);
    assert.match(valid?.message ?? '', /rename the server/);
    assert.doesNotMatch(valid?.message ?? '', RAW, 'the message itself is escaped');
    assert.equal(servers.has(OSC52) || servers.has(CLEAR), false, 'nothing of the file applies');

    // Every human output: the daemon's answers about them, and names given on the command line.
    await until('the stderr tail in why', async () =>
      (await env.cli(['why', 'crashy'])).stdout.includes('boom'),
    );
    const commands = [
      ['get', 'servers'],
      ['get', 'servers', '-o', 'wide'],
      ['get', 'servers', '-o', 'name'],
      ['get', 'sessions'],
      ['get', 'events'],
      ['get', 'events', '-o', 'wide'],
      ['get', 'events', '-o', 'name'],
      ['describe', 'server', 'tooly'],
      ['describe', 'server', 'crashy'],
      ['describe', 'server', OSC52],
      ['diff'],
      ['reload'],
      ['why', 'crashy'],
      ['why', OSC52],
      ['why', CLEAR],
      ['approve', OSC52],
      ['approve', CLEAR, '--session'],
      ['reject', OSC52],
      ['wait', `server/${CLEAR}`, '--for=condition=Ready', '--timeout=1s'],
      [`get${OSC52}`],
    ];
    const seen: string[] = [];
    for (const args of commands) {
      const r = await env.cli(args);
      const where = `mcpctl ${JSON.stringify(args)}`;
      assert.doesNotMatch(r.stdout, RAW, `${where} stdout:\n${JSON.stringify(r.stdout)}`);
      assert.doesNotMatch(r.stderr, RAW, `${where} stderr:\n${JSON.stringify(r.stderr)}`);
      seen.push(r.stdout + r.stderr);
    }
    const all = seen.join('\n');
    // The escaped forms are there, so the user sees what the file or server holds.
    assert.match(all, /tx\\x1b\]52;c;SGVsbG8=\\x07y/, 'a tool name, escaped');
    assert.match(all, /boom a\\x1b\[2Jb/, 'a stderr line, escaped');
    assert.match(all, /the server name "x\\u001b\]52;c;SGVsbG8=\\u0007y"/, 'the refusal');
  });
});
