/**
 * e2e attack: a repository `.mcp.json` that gets the shape of `env` and `headers` wrong, with a
 * secret in the wrong shape. The validation error must name the field and the expected type
 * and never quote the value: not in `get sessions`, `get events`, `describe`, nor the daemon log.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { SessionList } from '../cli/objects.js';
import { TestEnv } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };
const SECRET = 'sk-e2e-Q7mSECRETx3';
const NUMBER_SECRET = '918273645546372819';

describe('security: config errors never quote secrets (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('env and header values of a bad shape appear nowhere', T, async () => {
    env.write(env.mcpJsonPath, {
      mcpServers: { proj: { ...env.fixture('proj'), env: { TOKEN: 'fine' } } },
    });
    const daemon = await env.startDaemon();
    await env.untilServers((m) => m.has('proj'), 'proj listed');

    // The hostile (or careless) edit: secrets in shapes the schema refuses.
    env.write(
      env.mcpJsonPath,
      `{ "mcpServers": {
        "proj": { "command": "node", "env": "TOKEN=${SECRET}" },
        "web": { "httpUrl": "https://mcp.test/", "headers": { "Authorization": ["Bearer ${SECRET}"], "X-Pin": ${NUMBER_SECRET} } },
        "sse": { "url": "mcp.test/sse?token=${SECRET}" }
      } }`,
    );
    await until('ConfigValid=False', async () => {
      const r = await env.cli(['get', 'sessions', '-o', 'json']);
      const list = JSON.parse(r.stdout) as SessionList;
      const valid = list.items[0]?.status.conditions.find((c) => c.type === 'ConfigValid');
      return valid?.status === 'False' ? valid : undefined;
    }).then((valid) => {
      // Field and type are named, so the user knows what to fix.
      assert.match(valid.message, /mcpServers\.proj\.env: expected an object of string values/);
      assert.match(valid.message, /mcpServers\.web\.headers\.Authorization: expected a string/);
      assert.match(valid.message, /mcpServers\.sse\.url: expected an absolute URL/);
    });

    const outputs = await Promise.all(
      [
        ['get', 'sessions'],
        ['get', 'sessions', '-o', 'yaml'],
        ['get', 'sessions', '-o', 'json'],
        ['get', 'sessions', '-o', 'wide'],
        ['get', 'events'],
        ['get', 'events', '-o', 'yaml'],
        ['get', 'events', '-o', 'json'],
        ['get', 'servers', '-o', 'yaml'],
        ['describe', 'server', 'proj'],
        ['why', 'proj'],
      ].map(async (args) => ({ args, result: await env.cli(args) })),
    );
    const events = outputs.find((o) => o.args.join(' ') === 'get events -o json');
    assert.match(events?.result.stdout ?? '', /ConfigInvalid/, 'the error is an event');
    for (const { args, result } of outputs) {
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      for (const text of [result.stdout, result.stderr]) {
        assert.ok(!text.includes(SECRET), `mcpctl ${args.join(' ')} quoted the secret:\n${text}`);
        assert.ok(!text.includes(NUMBER_SECRET), `mcpctl ${args.join(' ')} quoted the number`);
      }
    }
    assert.ok(!daemon.stderr().includes(SECRET), 'the daemon log quotes no secret');
    assert.ok(!daemon.stderr().includes(NUMBER_SECRET), 'the daemon log quotes no number');
  });
});
