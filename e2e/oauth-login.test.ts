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
import { TestEnv, condition, isReady } from './harness.js';
import { connectAgent, login, Outputs, untilUnauthorized } from './fixtures/oauth-helpers.js';
import { startHttpFixture } from './fixtures/http-server.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';

const T = { timeout: 120_000 };

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

      const before = await untilUnauthorized(env, 'remote');
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
      const agent = await connectAgent(env, env.workspace, out);
      const who = await agent.whoami();
      await agent.close();
      assert.ok(who.clientId, 'the call ran with our token');

      // The store: 0600 in a 0700 folder.
      assert.equal(statSync(tokensFile(env)).mode & 0o777, 0o600);
      assert.equal(statSync(path.dirname(tokensFile(env))).mode & 0o777, 0o700);

      const logout = await env.cli(['logout', 'remote']);
      out.add(logout);
      assert.equal(logout.code, 0, logout.stderr);
      assert.match(logout.stdout, /signed out/);
      const loggedOut = await env.servers();
      assert.equal(
        condition(loggedOut.get('remote'), 'Ready')?.reason,
        'Unauthorized',
        'disconnected when logout returns',
      );
      const stored = readFileSync(tokensFile(env), 'utf8');
      for (const s of fx.issuedSecrets)
        assert.equal(stored.includes(s), false, 'logout removed the tokens from the file');

      const eventsAfter = await env.cli(['get', 'events']);
      out.add(eventsAfter);
      assert.match(eventsAfter.stdout, /LoggedIn/);
      assert.match(eventsAfter.stdout, /LoggedOut/);
      const all = await env.cli(['get', 'servers', '-o', 'yaml']);
      out.add(all);
      out.assertNoSecrets(fx.issuedSecrets, daemon);
    },
  );

  it(
    'a pre-registered clientId/clientSecret signs in without registration; the secret is never shown',
    T,
    async () => {
      const clientSecret = 'pre-registered-S3cret-value';
      const fx = (fixture = await startOAuthFixture({
        preRegistered: { clientId: 'mcpctl-pre', clientSecret },
      }));
      const out = new Outputs();
      env.write(env.userSettingsPath, {
        mcpServers: {
          remote: { httpUrl: fx.url, oauth: { clientId: 'mcpctl-pre', clientSecret } },
        },
      });
      const daemon = await env.startDaemon();
      await untilUnauthorized(env, 'remote');
      const { result } = await login(env, 'remote', out);
      assert.equal(result.code, 0, result.stdout);
      assert.equal(fx.counts.registrations, 0, 'no dynamic registration for a configured client');
      const agent = await connectAgent(env, env.workspace, out);
      assert.deepEqual(await agent.whoami(), { clientId: 'mcpctl-pre' });
      await agent.close();
      for (const args of [
        ['get', 'servers', '-o', 'json'],
        ['describe', 'server', 'remote'],
        ['get', 'events'],
        ['why', 'remote'],
      ])
        out.add(await env.cli(args));
      out.assertNoSecrets([...fx.issuedSecrets, clientSecret], daemon);
      const stored = readFileSync(tokensFile(env), 'utf8');
      assert.equal(
        stored.includes(clientSecret),
        false,
        'a configured secret is not copied to the store',
      );
    },
  );

  it(
    'a stray redirect with a wrong or missing state is answered 400 and changes nothing; the real one still signs in',
    T,
    async () => {
      const fx = (fixture = await startOAuthFixture());
      const out = new Outputs();
      env.write(env.userSettingsPath, { mcpServers: { remote: { httpUrl: fx.url } } });
      await env.startDaemon();
      await untilUnauthorized(env, 'remote');
      const { result, redirectStatus, location, strays } = await login(env, 'remote', out, {
        strayFirst: true,
      });
      assert.deepEqual(
        strays.map((s) => s.status),
        [400, 400],
        'each stray redirect is refused',
      );
      for (const s of strays) {
        assert.match(s.text, /not the redirect of the login in progress/);
        const code = location.searchParams.get('code') ?? '';
        assert.ok(code !== '' && !s.text.includes(code), 'the answer does not echo the code');
      }
      assert.equal(redirectStatus, 200, 'the real redirect was still awaited');
      assert.equal(result.code, 0, result.stdout);
      assert.match(result.stdout, /server\/remote signed in \(Ready\)/);
      assert.equal(fx.counts.codeExchanges, 1, 'only the real code was exchanged');
      // One use: the listener is gone once it took the real redirect.
      await assert.rejects(fetch(location), 'the loopback listener is closed');
      const servers = await env.servers();
      assert.ok(isReady(servers.get('remote')));
    },
  );

  it('login gives up after --timeout without a redirect and closes its listener', T, async () => {
    const fx = (fixture = await startOAuthFixture());
    env.write(env.userSettingsPath, { mcpServers: { remote: { httpUrl: fx.url } } });
    await env.startDaemon();
    await untilUnauthorized(env, 'remote');
    const r = await env.cli(['login', 'remote', '--no-browser', '--timeout', '2s']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no login redirect within 2 s/);
    const redirect = /Waiting for the redirect to (\S+) /.exec(r.stdout)?.[1];
    assert.ok(redirect, r.stdout);
    await assert.rejects(fetch(`${redirect}?state=x&code=y`), 'nothing listens any more');
  });

  it(
    'login refuses a server the session does not admit (never contacts it) and a local one',
    T,
    async () => {
      const fx = (fixture = await startOAuthFixture());
      env.write(env.mcpJsonPath, { mcpServers: { proj: { type: 'http', url: fx.url } } });
      env.write(env.userSettingsPath, { mcpServers: { local: env.fixture('local') } });
      await env.startDaemon();
      await env.untilServers(
        (m) =>
          condition(m.get('proj'), 'Admitted')?.reason === 'PendingApproval' &&
          isReady(m.get('local')),
        'proj pending, local Ready',
      );
      const r = await env.cli(['login', 'proj', '--no-browser', '--timeout', '5s']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /approve/);
      assert.equal(fx.counts.requests, 0, 'a gated server is never contacted before approval');
      const local = await env.cli(['login', 'local', '--no-browser', '--timeout', '5s']);
      assert.equal(local.code, 1);
      assert.match(local.stderr, /does not sign in with OAuth/);
    },
  );

  it('a login outlives the daemon: a new daemon connects with the stored grant', T, async () => {
    const fx = (fixture = await startOAuthFixture());
    const out = new Outputs();
    env.write(env.userSettingsPath, { mcpServers: { remote: { httpUrl: fx.url } } });
    await env.startDaemon();
    await untilUnauthorized(env, 'remote');
    const { result } = await login(env, 'remote', out);
    assert.equal(result.code, 0, result.stdout);
    const stop = await env.cli(['stop']);
    assert.equal(stop.code, 0, stop.stderr);
    await env.startDaemon();
    await env.untilServers((m) => isReady(m.get('remote')), 'remote Ready after a restart');
    assert.equal(fx.counts.codeExchanges, 1, 'no second login');
    // Signing in again (another free port) reuses the registered client: any loopback port.
    const again = await login(env, 'remote', out);
    assert.equal(again.result.code, 0, again.result.stdout);
    assert.equal(fx.counts.registrations, 1, 'the registered client is reused');
    assert.equal(fx.counts.codeExchanges, 2);
  });

  it('a 401 from a server without OAuth metadata still says to check the headers', T, async () => {
    const plain = await startHttpFixture({ requireHeader: { name: 'X-Api-Key', value: 'k' } });
    try {
      env.write(env.userSettingsPath, { mcpServers: { keyed: { httpUrl: plain.url } } });
      await env.startDaemon();
      const servers = await env.untilServers(
        (m) => condition(m.get('keyed'), 'Ready')?.status === 'False',
        'keyed failed',
      );
      const ready = condition(servers.get('keyed'), 'Ready');
      assert.notEqual(ready?.reason, 'Unauthorized');
      assert.match(ready?.message ?? '', /check the credentials in the server's "headers"/);
    } finally {
      await env.cleanup();
      await plain.close();
    }
  });

  it('an SSE server (Claude shape, type "sse") signs in the same way', T, async () => {
    const fx = (fixture = await startOAuthFixture());
    const out = new Outputs();
    env.write(env.mcpJsonPath, { mcpServers: { remote: { type: 'sse', url: fx.sseUrl } } });
    const daemon = await env.startDaemon();
    const approve = await env.cli(['approve', 'remote']);
    assert.equal(approve.code, 0, approve.stderr);
    await untilUnauthorized(env, 'remote');
    const { result } = await login(env, 'remote', out);
    assert.equal(result.code, 0, result.stdout);
    const agent = await connectAgent(env, env.workspace, out);
    assert.ok((await agent.whoami()).clientId);
    await agent.close();
    out.assertNoSecrets(fx.issuedSecrets, daemon);
  });
});
