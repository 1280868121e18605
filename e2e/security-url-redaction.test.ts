/**
 * e2e: a token in a remote server's URL (query string, userinfo, fragment) is a secret like a
 * header value: hidden in every output, event, error and log unless `--show-secrets`.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TestEnv, condition } from './harness.js';

const T = { timeout: 90_000 };
const TOKEN = 'tok-QUERYSECRET-81';
const KEY = 'key-APIKEYSECRET-82';
const PASSWORD = 'pw-USERINFOSECRET-83';

/** A local port nothing listens on (it was free a moment ago). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
    });
  });
}

describe('security: secrets in URLs (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('query values and userinfo are redacted everywhere but --show-secrets', T, async () => {
    const port = await freePort();
    const httpUrl = `http://bob:${PASSWORD}@127.0.0.1:${port}/mcp?token=${TOKEN}&api_key=${KEY}`;
    const sseUrl = `http://127.0.0.1:${port}/sse?token=${TOKEN}#${KEY}`;
    env.write(env.userSettingsPath, { mcpServers: { web: { httpUrl }, sse: { url: sseUrl } } });
    const daemon = await env.startDaemon();
    await env.untilServers(
      (m) =>
        condition(m.get('web'), 'Ready')?.reason === 'ConnectFailed' &&
        condition(m.get('sse'), 'Ready')?.reason === 'ConnectFailed',
      'both remote servers failed to connect',
    );

    const runs = await Promise.all(
      [
        ['describe', 'server', 'web'],
        ['describe', 'server', 'sse'],
        ['get', 'servers', '-o', 'yaml'],
        ['get', 'servers', '-o', 'json'],
        ['get', 'servers', '-o', 'wide'],
        ['get', 'events'],
        ['get', 'events', '-o', 'json'],
        ['why', 'web'],
        ['why', 'sse', '-o', 'json'],
        ['diff'],
      ].map(async (args) => ({ args, r: await env.cli(args) })),
    );
    for (const { args, r } of runs) {
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      for (const secret of [TOKEN, KEY, PASSWORD]) {
        const where = `mcpctl ${args.join(' ')}`;
        assert.ok(!r.stdout.includes(secret), `${where} shows ${secret}:\n${r.stdout}`);
        assert.ok(!r.stderr.includes(secret), `${where} shows ${secret} on stderr`);
      }
    }
    const describeWeb = runs[0]?.r.stdout ?? '';
    assert.match(
      describeWeb,
      new RegExp(
        `httpUrl: http://<redacted>@127\\.0\\.0\\.1:${port}/mcp\\?token=<redacted>&api_key=<redacted>`,
      ),
    );
    const describeSse = runs[1]?.r.stdout ?? '';
    assert.match(describeSse, /url: http:\/\/127\.0\.0\.1:\d+\/sse\?token=<redacted>#<redacted>/);
    for (const secret of [TOKEN, KEY, PASSWORD])
      assert.ok(!daemon.stderr().includes(secret), `the daemon log shows ${secret}`);

    // Asked for explicitly, the exact URL is there.
    const shown = await env.cli(['get', 'servers', 'web', '-o', 'json', '--show-secrets']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal((JSON.parse(shown.stdout) as { spec: { httpUrl: string } }).spec.httpUrl, httpUrl);
  });
});
