/**
 * e2e: OAuth tokens never leave the daemon (issue 16), even when a server echoes the bearer
 * token it was sent in its error answers: the agent's tool error, the status, the events and
 * the daemon's log show it hidden.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TestEnv, condition } from './harness.js';
import { connectAgent, login, Outputs, untilUnauthorized } from './fixtures/oauth-helpers.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';

const T = { timeout: 120_000 };

describe('OAuth secrets (e2e)', () => {
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

  it('a server that echoes our token in its errors does not get it printed', T, async () => {
    const fx = (fixture = await startOAuthFixture());
    const out = new Outputs();
    env.write(env.userSettingsPath, { mcpServers: { remote: { httpUrl: fx.url } } });
    const first = await env.startDaemon();
    await untilUnauthorized(env, 'remote');
    const { result } = await login(env, 'remote', out);
    assert.equal(result.code, 0, result.stdout);

    const agent = await connectAgent(env, env.workspace, out);
    try {
      fx.echoTokens = true;
      const failure = await agent.whoamiError();
      assert.ok(failure !== undefined, 'the call failed');
      assert.match(failure, /<redacted>/, 'the echoed token is shown hidden');
    } finally {
      await agent.close();
    }
    out.assertNoSecrets(fx.issuedSecrets, first);

    // A connect that fails with the echo: status, events and log hide it too.
    const stop = await env.cli(['stop']);
    assert.equal(stop.code, 0, stop.stderr);
    const second = await env.startDaemon();
    await env.untilServers(
      (m) => condition(m.get('remote'), 'Ready')?.status === 'False',
      'remote failing',
    );
    for (const args of [
      ['get', 'servers', '-o', 'yaml'],
      ['describe', 'server', 'remote'],
      ['get', 'events', '-o', 'json'],
      ['why', 'remote'],
    ])
      out.add(await env.cli(args));
    assert.match(out.texts.join('\n'), /<redacted>/);
    out.assertNoSecrets(fx.issuedSecrets, second);
  });
});
