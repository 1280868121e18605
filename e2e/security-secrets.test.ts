/**
 * e2e attack: a repository `.mcp.json` that gets the shape of `env` and `headers` wrong, with a
 * secret in the wrong shape. The validation error must name the field and the expected type
 * and never quote the value: not in `get sessions`, `get events`, `describe`, nor the daemon log.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { SessionList } from '../cli/objects.js';
import { TestEnv } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };
const SECRET = 'sk-e2e-Q7mSECRETx3';
const NUMBER_SECRET = '918273645546372819';
/** A number a wrongly typed field may hold (small enough to print exactly). */
const SHORT_NUMBER = '9182736451';

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

  it(
    'no field of a bad type is quoted: args, type, trust, lsp transport and folder',
    T,
    async () => {
      const lspJson = path.join(env.workspace, '.lsp.json');
      // Fields that are not secret by name still hold one when the user errs: a key in `args`.
      env.write(
        env.mcpJsonPath,
        `{ "mcpServers": {
        "proj": { "command": "node", "args": "--api-key=${SECRET}" },
        "kind": { "command": "node", "type": "${SECRET}" },
        "flag": { "command": "node", "trust": ${SHORT_NUMBER} }
      } }`,
      );
      env.write(
        lspJson,
        `{
        "ts": { "command": "tsls", "args": "--token=${SECRET}", "extensionToLanguage": { ".ts": "typescript" } },
        "tcp": { "command": "x", "transport": "${SECRET}", "extensionToLanguage": { ".x": "x" } },
        "out": { "command": "x", "workspaceFolder": "../${SECRET}", "extensionToLanguage": { ".y": "y" } }
      }`,
      );
      const daemon = await env.startDaemon();
      const valid = await until('ConfigValid=False naming both files', async () => {
        const list = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
        const c = list.items[0]?.status.conditions.find((x) => x.type === 'ConfigValid');
        return c?.status === 'False' &&
          c.message.includes('.lsp.json') &&
          c.message.includes('.mcp.json')
          ? c
          : undefined;
      });
      // Field and type, so the user knows what to fix.
      assert.match(
        valid.message,
        /mcpServers\.proj\.args: expected an array of strings, got a string/,
      );
      assert.match(valid.message, /mcpServers\.flag\.trust: expected true or false, got a number/);
      assert.match(valid.message, /ts\.args: expected an array of strings, got a string/);
      const outputs = await Promise.all(
        [
          ['get', 'sessions', '-o', 'json'],
          ['get', 'events'],
          ['get', 'events', '-o', 'json'],
          ['get', 'servers'],
          ['get', 'lsp'],
          ['why', 'proj'],
          ['describe', 'server', 'proj'],
          ['describe', 'languageserver', 'ts'],
          ['reload'],
          ['diff'],
        ].map(async (args) => ({ args, result: await env.cli(args) })),
      );
      for (const { args, result } of outputs)
        for (const text of [result.stdout, result.stderr]) {
          assert.ok(!text.includes(SECRET), `mcpctl ${args.join(' ')} quoted the value:\n${text}`);
          assert.ok(!text.includes(SHORT_NUMBER), `mcpctl ${args.join(' ')} quoted the number`);
        }
      assert.ok(!daemon.stderr().includes(SECRET), 'the daemon log quotes no value');
      assert.ok(!daemon.stderr().includes(SHORT_NUMBER), 'the daemon log quotes no number');
    },
  );
});
