/**
 * e2e: OAuth token refresh (issue 16). Access tokens of the fixture live a few seconds; the
 * daemon refreshes them once for every session, in place (no reconnect, no Ready flap), and a
 * refresh the provider refuses puts the server back to Unauthorized without disturbing others.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TestEnv, condition, isReady } from './harness.js';
import { until } from '../testing/until.js';
import { connectAgent, login, Outputs, untilUnauthorized } from './fixtures/oauth-helpers.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';

const T = { timeout: 120_000 };
const TTL_SEC = 3;

describe('OAuth refresh (e2e)', () => {
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
    'an expired or rejected access token is refreshed once for two sessions, without a reconnect',
    T,
    async () => {
      const fx = (fixture = await startOAuthFixture({ accessTtlSec: TTL_SEC }));
      const out = new Outputs();
      env.write(env.userSettingsPath, { mcpServers: { remote: { httpUrl: fx.url } } });
      const other = path.join(env.root, 'other-ws');
      mkdirSync(other);
      const daemon = await env.startDaemon();
      await untilUnauthorized(env, 'remote');
      const { result } = await login(env, 'remote', out);
      assert.equal(result.code, 0, result.stdout);

      // Two sessions (two workspaces), each with an agent.
      const a = await connectAgent(env, env.workspace, out);
      const b = await connectAgent(env, realpathSync(other), out);
      try {
        const before = (await env.servers()).get('remote');
        assert.ok(isReady(before));
        const sessions = fx.counts.sessions;
        const readySince = condition(before, 'Ready')?.lastTransitionTime;

        // 1. Expiry: past the token's lifetime, both sessions call at once → one refresh.
        const r0 = fx.counts.refreshes;
        await new Promise((r) => setTimeout(r, (TTL_SEC + 1) * 1000));
        const [wa, wb] = await Promise.all([a.whoami(), b.whoami()]);
        assert.ok(wa.clientId && wa.clientId === wb.clientId);
        assert.equal(fx.counts.refreshes - r0, 1, 'one refresh for both sessions');

        // 2. The server rejects a token we think is valid (401) → one refresh, then the retry.
        const r1 = fx.counts.refreshes;
        fx.expireAccessTokens();
        const [xa, xb] = await Promise.all([a.whoami(), b.whoami()]);
        assert.ok(xa.clientId && xa.clientId === xb.clientId);
        assert.equal(fx.counts.refreshes - r1, 1, 'one refresh after a 401, for both calls');

        // No reconnect: the same MCP session at the server, no Ready flap, no restart.
        assert.equal(fx.counts.sessions, sessions, 'no new MCP session');
        const after = (await env.servers()).get('remote');
        assert.ok(isReady(after));
        assert.equal(
          condition(after, 'Ready')?.lastTransitionTime,
          readySince,
          'Ready never flapped',
        );
        assert.equal(after?.status.restarts, 0);
        const events = await env.cli(['get', 'events']);
        out.add(events);
        assert.doesNotMatch(events.stdout, /Disconnected|BackOff/);
      } finally {
        await a.close();
        await b.close();
      }
      out.assertNoSecrets(fx.issuedSecrets, daemon);
    },
  );

  it(
    'a revoked refresh token puts the server back to Unauthorized; other servers are untouched',
    T,
    async () => {
      const fx = (fixture = await startOAuthFixture({ accessTtlSec: 3600 }));
      const out = new Outputs();
      env.write(env.userSettingsPath, {
        mcpServers: { remote: { httpUrl: fx.url }, local: env.fixture('local') },
      });
      const daemon = await env.startDaemon();
      await env.untilServers(
        (m) =>
          condition(m.get('remote'), 'Ready')?.reason === 'Unauthorized' && isReady(m.get('local')),
        'remote Unauthorized, local Ready',
      );
      const { result } = await login(env, 'remote', out);
      assert.equal(result.code, 0, result.stdout);
      const localPid = (await env.servers()).get('local')?.status.pid;
      assert.ok(localPid);

      const agent = await connectAgent(env, env.workspace, out);
      try {
        await agent.whoami();
        fx.revokeRefreshTokens();
        fx.expireAccessTokens();
        const failure = await agent.whoamiError();
        assert.ok(failure !== undefined, 'the call fails once the grant is gone');
        const servers = await env.untilServers(
          (m) => condition(m.get('remote'), 'Ready')?.reason === 'Unauthorized',
          'remote Unauthorized after the refresh was refused',
        );
        assert.equal(fx.counts.refreshFailures, 1, 'one refused refresh, no retry storm');
        assert.ok(isReady(servers.get('local')));
        assert.equal(servers.get('local')?.status.pid, localPid, 'the other server kept running');
        const why = await env.cli(['why', 'remote']);
        out.add(why);
        assert.match(why.stdout, /^Unauthorized: run '?mcpctl login remote'?\n/);
        // The agent is told the same.
        const again = await until('the tool error to name the login', () => agent.whoamiError());
        assert.match(again, /mcpctl login remote/);
      } finally {
        await agent.close();
      }
      out.assertNoSecrets(fx.issuedSecrets, daemon);
    },
  );
});
