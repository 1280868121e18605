/**
 * e2e: a remote server behind OAuth (issue 16). The daemon runs as a process; the OAuth-protected
 * MCP server (e2e/fixtures/oauth-server.ts) runs in the test; the test plays the browser: it
 * fetches the authorization URL `mcpctl login` prints and follows the redirect to the CLI's
 * loopback listener.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  CLI,
  TestEnv,
  condition,
  eventually,
  isReady,
  type CliResult,
  type DaemonProcess,
} from '../cli/testing/harness.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';

const T = { timeout: 120_000 };

/** Everything a test saw from mcpctl, to grep for secrets at the end. */
class Outputs {
  readonly texts: string[] = [];
  add(r: CliResult | string): void {
    this.texts.push(typeof r === 'string' ? r : `${r.stdout}\n${r.stderr}`);
  }
  assertNoSecrets(secrets: Iterable<string>, daemon: DaemonProcess): void {
    const all = [...this.texts, daemon.stderr()];
    for (const s of secrets)
      for (const text of all)
        assert.equal(text.includes(s), false, 'a token or secret was printed');
  }
}

/** `mcpctl login NAME --no-browser`, with the test as the browser. */
async function login(
  env: TestEnv,
  name: string,
  out: Outputs,
  opts: { tamperState?: boolean } = {},
): Promise<{ result: CliResult; redirectStatus: number }> {
  const child = env.spawnCli(['login', name, '--no-browser', '--timeout', '60s']);
  const exited = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout: child.output(), stderr: '' }),
    ),
  );
  const url = await eventually(() => /https?:\/\/\S*authorize\S*/.exec(child.output())?.[0], {
    what: 'login to print the authorization URL',
  });
  const authorize = await fetch(url, { redirect: 'manual' });
  assert.equal(authorize.status, 302, 'the authorization server redirects back');
  const location = new URL(authorize.headers.get('location') ?? '');
  assert.equal(location.hostname, '127.0.0.1', 'the redirect goes to the loopback listener');
  if (opts.tamperState) location.searchParams.set('state', 'not-the-state-we-sent');
  const back = await fetch(location);
  await back.text();
  const result = await exited;
  out.add(result);
  return { result, redirectStatus: back.status };
}

async function callWhoami(env: TestEnv): Promise<{ clientId: string | null }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--workspace', env.workspace],
    env: env.env() as Record<string, string>,
    cwd: env.workspace,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  await client.connect(transport);
  env.trackPid(transport.pid ?? undefined);
  try {
    const tools = await eventually(async () => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      return names.includes('remote__whoami') ? names : undefined;
    });
    assert.ok(tools.includes('remote__whoami'));
    const result = (await client.callTool({
      name: 'remote__whoami',
      arguments: {},
    })) as CallToolResult;
    const first = result.content[0];
    assert.equal(first?.type, 'text');
    return JSON.parse(first.type === 'text' ? first.text : '{}') as { clientId: string | null };
  } finally {
    await client.close();
  }
}

function tokensFile(env: TestEnv): string {
  return path.join(env.home, '.mcpctl', 'oauth-tokens.json');
}

describe('OAuth login (e2e)', () => {
  let env: TestEnv;
  let fixture: OAuthFixture | undefined;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
    await fixture?.close();
    fixture = undefined;
  });

  it(
    'a 401 shows Unauthorized with the login action and waits; login (dynamic registration) makes it Ready and a call works; logout forgets the tokens',
    T,
    async () => {
      const fx = (fixture = await startOAuthFixture());
      const out = new Outputs();
      env.write(env.userSettingsPath, { mcpServers: { remote: { httpUrl: fx.url } } });
      const daemon = await env.startDaemon();

      const before = await env.untilServers(
        (m) => condition(m.get('remote'), 'Ready')?.reason === 'Unauthorized',
        'remote Unauthorized',
      );
      assert.match(condition(before.get('remote'), 'Ready')?.message ?? '', /mcpctl login remote/);
      const why = await env.cli(['why', 'remote']);
      out.add(why);
      assert.equal(why.code, 0, why.stderr);
      assert.match(why.stdout, /^Unauthorized: run '?mcpctl login remote'?\n/);
      const describe = await env.cli(['describe', 'server', 'remote']);
      out.add(describe);
      assert.match(describe.stdout, /Unauthorized/);

      // Waiting, not backing off: no new attempt hits the server while nobody logs in (a
      // crash-loop would retry after 1 s and 2 s).
      const rejected = fx.counts.rejected;
      await new Promise((r) => setTimeout(r, 3500));
      assert.equal(fx.counts.rejected, rejected, 'no reconnect storm against the server');
      const events = await env.cli(['get', 'events']);
      out.add(events);
      assert.doesNotMatch(events.stdout, /BackOff/);
      assert.equal(fx.counts.registrations, 0, 'a connection never registers a client');

      const { result, redirectStatus } = await login(env, 'remote', out);
      assert.equal(redirectStatus, 200);
      assert.equal(result.code, 0, result.stdout);
      assert.match(result.stdout, /server\/remote signed in \(Ready\)/);
      assert.equal(fx.counts.registrations, 1, 'dynamic client registration');
      assert.equal(fx.counts.codeExchanges, 1);

      const after = await env.servers();
      assert.ok(isReady(after.get('remote')));
      assert.deepEqual(after.get('remote')?.status.tools, ['whoami']);
      const who = await callWhoami(env);
      assert.ok(who.clientId, 'the call ran with our token');

      // The store: 0600 in a 0700 folder.
      assert.equal(statSync(tokensFile(env)).mode & 0o777, 0o600);
      assert.equal(statSync(path.dirname(tokensFile(env))).mode & 0o777, 0o700);

      const logout = await env.cli(['logout', 'remote']);
      out.add(logout);
      assert.equal(logout.code, 0, logout.stderr);
      await env.untilServers(
        (m) => condition(m.get('remote'), 'Ready')?.reason === 'Unauthorized',
        'remote Unauthorized after logout',
      );
      const stored = readFileSync(tokensFile(env), 'utf8');
      for (const s of fx.issuedSecrets)
        assert.equal(stored.includes(s), false, 'logout removed the tokens from the file');

      const all = await env.cli(['get', 'servers', '-o', 'yaml']);
      out.add(all);
      out.assertNoSecrets(fx.issuedSecrets, daemon);
    },
  );
});
