/**
 * e2e: the approval question shows exactly what a server would send where (issue 22, M1 and
 * L6). A repository's `.mcp.json` puts `${AWS_SECRET_ACCESS_KEY}` in a URL query and
 * `${GITHUB_TOKEN}` in a header: the in-agent question, `mcpctl approve` and `mcpctl describe`
 * must show that text and say "sends $AWS_SECRET_ACCESS_KEY to HOST", never the real values,
 * and keep a literal secret written in the file hidden. The question shows a stdio server's
 * `cwd` as `approve` does.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { TestEnv, condition, isReady } from './harness.js';
import { until } from '../testing/until.js';
import { startHttpFixture, type HttpFixture } from './fixtures/http-server.js';

const T = { timeout: 120_000 };
const AWS = 'aws-REAL-secret-value-9137';
const GITHUB = 'ghp-REAL-token-value-9242';
const LITERAL = 'literal-KEY-in-file-7781';
const SECRETS = { AWS_SECRET_ACCESS_KEY: AWS, GITHUB_TOKEN: GITHUB };

function assertNoRealValue(text: string, where: string): void {
  for (const secret of [AWS, GITHUB, LITERAL])
    assert.ok(!text.includes(secret), `${where} shows a secret value:\n${text}`);
}

describe('security: the approval shows what a server sends where (e2e)', () => {
  let env: TestEnv;
  let http: HttpFixture | undefined;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
    await http?.close();
    http = undefined;
  });

  it(
    'question, approve and describe show ${VAR} text and "sends $VAR to host", never the values',
    T,
    async () => {
      http = await startHttpFixture({ tools: ['echo'] });
      const host = new URL(http.url).host;
      const cwd = path.join(env.workspace, 'tools dir');
      mkdirSync(cwd);
      env.write(env.mcpJsonPath, {
        mcpServers: {
          web: {
            type: 'http',
            url: `${http.url}?k=\${AWS_SECRET_ACCESS_KEY}`,
            headers: { 'X-Tok': '${GITHUB_TOKEN}', 'X-Key': LITERAL },
          },
          local: { ...env.fixture('local'), cwd, env: { TOKEN: '${GITHUB_TOKEN}' } },
        },
      });
      const daemon = await env.startDaemon([], { env: SECRETS });
      await env.untilServers(
        (m) =>
          condition(m.get('web'), 'Admitted')?.reason === 'PendingApproval' &&
          condition(m.get('local'), 'Admitted')?.reason === 'PendingApproval',
        'both servers pending',
      );

      // The in-agent question (MCP elicitation).
      const questions: string[] = [];
      const { transport, stderr: serveStderr } = env.serveTransport({ extraEnv: SECRETS });
      const client = new Client(
        { name: 'display-agent', version: '1.0.0' },
        { capabilities: { elicitation: {} } },
      );
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        questions.push(request.params.message);
        return { action: 'cancel' as const };
      });
      await client.connect(transport);
      env.trackPid(transport.pid ?? undefined);
      let webQuestion: string;
      let localQuestion: string;
      try {
        webQuestion = await until(
          () => `the question about web (serve stderr: ${serveStderr()})`,
          () => questions.find((q) => q.includes('"web"')),
          { timeoutMs: 20_000 },
        );
        localQuestion = await until(
          'the question about local',
          () => questions.find((q) => q.includes('"local"')),
          { timeoutMs: 20_000 },
        );
      } finally {
        await client.close();
      }

      const describeWeb = await env.cli(['describe', 'server', 'web']);
      assert.equal(describeWeb.code, 0, describeWeb.stderr);
      const approveWeb = await env.cli(['approve', 'web']);
      assert.equal(approveWeb.code, 0, approveWeb.stderr);
      const approveLocal = await env.cli(['approve', 'local']);
      assert.equal(approveLocal.code, 0, approveLocal.stderr);

      const surfaces: Array<[string, string]> = [
        ['the question', webQuestion],
        ['mcpctl approve', approveWeb.stdout],
        ['mcpctl describe', describeWeb.stdout],
      ];
      for (const [where, text] of surfaces) {
        assert.ok(text.includes('?k=${AWS_SECRET_ACCESS_KEY}'), `${where} shows the URL text`);
        assert.ok(
          text.includes(`sends $AWS_SECRET_ACCESS_KEY to ${host}`),
          `${where} says where $AWS_SECRET_ACCESS_KEY goes:\n${text}`,
        );
        assert.ok(
          text.includes(`sends $GITHUB_TOKEN to ${host}`),
          `${where} says where $GITHUB_TOKEN goes:\n${text}`,
        );
        assert.match(text, /X-Key/, `${where} names the literal header`);
        assertNoRealValue(text, where);
      }
      // L6: the question shows where a command runs, as approve does.
      for (const [where, text] of [
        ['the question', localQuestion],
        ['mcpctl approve', approveLocal.stdout],
      ]) {
        assert.ok(text.includes(JSON.stringify(cwd)), `${where} shows cwd:\n${text}`);
        assert.ok(text.includes('$GITHUB_TOKEN'), `${where} names the env variable`);
        assertNoRealValue(text, where);
      }

      // After approval the values are used (the server is reached), still never shown.
      await env.untilServers(
        (m) => isReady(m.get('web')) && isReady(m.get('local')),
        'both Ready after approval',
      );
      for (const args of [
        ['describe', 'server', 'web'],
        ['describe', 'server', 'local'],
        ['get', 'servers', '-o', 'yaml'],
        ['get', 'events'],
      ]) {
        const r = await env.cli(args);
        assert.equal(r.code, 0, r.stderr);
        assertNoRealValue(r.stdout + r.stderr, `mcpctl ${args.join(' ')}`);
      }
      assertNoRealValue(daemon.stderr(), 'the daemon log');
    },
  );
});
