/**
 * e2e: the Qwen/Gemini `oauth.audiences` setting (issue 16). Those agents send it as one
 * `audience` parameter (the audiences joined by spaces) on the authorization URL and on every
 * token request; mcpctl does the same, and sends nothing when none is configured.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TestEnv, condition } from './harness.js';
import { connectAgent, login, Outputs } from './fixtures/oauth-helpers.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';

const T = { timeout: 120_000 };
const TTL_SEC = 3;

describe('OAuth audiences (e2e)', () => {
  let env: TestEnv;
  const fixtures: OAuthFixture[] = [];
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
    await Promise.all(fixtures.splice(0).map((f) => f.close()));
  });

  it(
    'configured audiences reach the authorize URL, the code exchange and the refresh; none configured, none sent',
    T,
    async () => {
      const withAud = await startOAuthFixture({ accessTtlSec: TTL_SEC });
      const plain = await startOAuthFixture();
      fixtures.push(withAud, plain);
      const out = new Outputs();
      env.write(env.userSettingsPath, {
        mcpServers: {
          aud: {
            httpUrl: withAud.url,
            oauth: { audiences: ['https://api.example.com', 'urn:example:second'] },
          },
          plain: { httpUrl: plain.url },
        },
      });
      const daemon = await env.startDaemon();
      await env.untilServers(
        (m) =>
          condition(m.get('aud'), 'Ready')?.reason === 'Unauthorized' &&
          condition(m.get('plain'), 'Ready')?.reason === 'Unauthorized',
        'both Unauthorized',
      );
      for (const name of ['aud', 'plain']) {
        const { result } = await login(env, name, out);
        assert.equal(result.code, 0, result.stdout);
      }

      const expected = 'https://api.example.com urn:example:second';
      assert.equal(withAud.authorizeQueries.length, 1);
      assert.equal(withAud.authorizeQueries[0]?.get('audience'), expected);
      const exchange = withAud.tokenForms.find((f) => f.get('grant_type') === 'authorization_code');
      assert.equal(exchange?.get('audience'), expected, 'the code exchange carries it');

      assert.equal(plain.authorizeQueries.length, 1);
      assert.equal(plain.authorizeQueries[0]?.has('audience'), false);
      assert.ok(plain.tokenForms.length > 0);
      assert.ok(
        plain.tokenForms.every((f) => !f.has('audience')),
        'nothing added without it',
      );

      // Past the access token's life, a call refreshes it, with the audience again.
      const agent = await connectAgent(env, env.workspace, out, 'aud__whoami');
      try {
        await new Promise((r) => setTimeout(r, (TTL_SEC + 1) * 1000));
        assert.ok((await agent.whoami()).clientId);
      } finally {
        await agent.close();
      }
      const refresh = withAud.tokenForms.find((f) => f.get('grant_type') === 'refresh_token');
      assert.equal(refresh?.get('audience'), expected, 'the refresh carries it');
      out.assertNoSecrets([...withAud.issuedSecrets, ...plain.issuedSecrets], daemon);
    },
  );
});
