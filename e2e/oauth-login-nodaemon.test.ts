/**
 * e2e: `mcpctl login NAME` with no daemon running (issue 16). A login is only useful to the
 * daemon that keeps the grant, so login starts one for its workspace, as `mcpctl serve` does,
 * and the server is Ready when it returns; `mcpctl stop` ends that daemon.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TestEnv, isReady, processesMentioning } from './harness.js';
import { until } from '../testing/until.js';
import { login, Outputs } from './fixtures/oauth-helpers.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';

const T = { timeout: 120_000 };

describe('OAuth login without a daemon (e2e)', () => {
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
    'starts a daemon for its workspace, signs in, and the daemon stops with mcpctl stop',
    T,
    async () => {
      const fx = (fixture = await startOAuthFixture());
      const out = new Outputs();
      env.write(env.userSettingsPath, { mcpServers: { remote: { httpUrl: fx.url } } });
      assert.deepEqual(processesMentioning(env.socket), [], 'no daemon before the login');

      const { result, redirectStatus } = await login(env, 'remote', out);
      assert.equal(redirectStatus, 200);
      assert.equal(result.code, 0, result.stdout);
      assert.match(result.stdout, /started an mcpctl daemon/);
      assert.match(result.stdout, /server\/remote signed in \(Ready\)/);
      assert.equal(fx.counts.codeExchanges, 1);

      // The daemon outlives the login and keeps the grant for every session.
      const servers = await env.servers();
      assert.ok(isReady(servers.get('remote')));
      assert.notDeepEqual(processesMentioning(env.socket), []);

      const stop = await env.cli(['stop'], { timeoutMs: 30_000 });
      out.add(stop);
      assert.equal(stop.code, 0, stop.stderr);
      await until(
        'the daemon login started to end',
        () => processesMentioning(env.socket).length === 0,
      );
    },
  );
});
