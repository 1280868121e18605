/**
 * e2e: the language servers' config flags — `--lsp-config FILE` and
 * `--allowed-lsp-server-names a,b` — parsed by `mcpctl daemon` and `mcpctl serve`, carried to
 * the session (its spec, its key) and its files watched (ConfigValid names a bad entry).
 */
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SessionList, SessionObject } from '../cli/objects.js';
import { TestEnv, isAlive } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

const TS = {
  command: 'typescript-language-server',
  args: ['--stdio'],
  extensionToLanguage: { '.ts': 'typescript' },
};

describe('language server config flags (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  /** An agent on `mcpctl serve --allowed-lsp-server-names "" --lsp-config FILE`. */
  async function serveWithLspFlags() {
    const lspFile = path.join(env.root, 'serve-lsp.json');
    env.write(lspFile, { ts: TS });
    const { transport, stderr } = env.serveTransport({
      args: ['--allowed-lsp-server-names', '', '--lsp-config', lspFile],
    });
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid;
    assert.ok(pid, 'serve is running');
    env.trackPid(pid);
    return { lspFile, client, pid, stderr };
  }

  async function sessions(): Promise<SessionObject[]> {
    return (await env.json<SessionList>(['get', 'sessions', '-o', 'json'])).items;
  }

  it(
    'daemon: --lsp-config and --allowed-lsp-server-names reach the default session; a bad entry fails ConfigValid',
    T,
    async () => {
      const lspFile = path.join(env.root, 'lsp.json');
      env.write(lspFile, { ts: TS });
      await env.startDaemon(['--lsp-config', lspFile, '--allowed-lsp-server-names', 'ts,py']);
      const [own] = await sessions();
      assert.deepEqual(own?.spec, {
        workspace: realpathSync(env.workspace),
        ceiling: null,
        mcpConfig: null,
        lspCeiling: ['ts', 'py'],
        lspConfig: realpathSync(lspFile),
      });
      assert.equal(own?.status.conditions.find((c) => c.type === 'ConfigValid')?.status, 'True');

      env.write(lspFile, { ts: { ...TS, extensionToLanguage: 'ts' } });
      const invalid = await until(
        'ConfigValid=False for the --lsp-config file',
        async () => {
          const c = (await sessions())[0]?.status.conditions.find((x) => x.type === 'ConfigValid');
          return c?.status === 'False' ? c : undefined;
        },
        { timeoutMs: 20_000 },
      );
      assert.ok(invalid.message.includes(realpathSync(lspFile)), invalid.message);
      assert.match(invalid.message, /ts\.extensionToLanguage: expected an object mapping/);

      // The project's .lsp.json is watched too.
      env.write(lspFile, { ts: TS });
      env.write(path.join(env.workspace, '.lsp.json'), { py: { command: 'pyright' } });
      const missing = await until(
        'ConfigValid=False for .lsp.json',
        async () => {
          const c = (await sessions())[0]?.status.conditions.find((x) => x.type === 'ConfigValid');
          return c?.status === 'False' && c.message.includes('.lsp.json') ? c : undefined;
        },
        { timeoutMs: 20_000 },
      );
      assert.match(missing.message, /py\.extensionToLanguage: missing/);
      assert.ok(!missing.message.includes(realpathSync(lspFile)), 'the --lsp-config file is fixed');
    },
  );

  it('serve: a daemon it starts gets its LSP flags, for its default session', T, async () => {
    const { lspFile, client, pid, stderr } = await serveWithLspFlags();
    try {
      const all = await sessions().catch((err: Error) => {
        throw new Error(`${err.message}; serve stderr: ${stderr()}`);
      });
      assert.equal(all.length, 1, 'serve joined the default session of the daemon it started');
      assert.deepEqual(all[0]?.spec.lspCeiling, []);
      assert.equal(all[0]?.spec.lspConfig, realpathSync(lspFile));
    } finally {
      await client.close();
      await until(`serve ${pid} to exit`, () => !isAlive(pid), { timeoutMs: 5000 });
      await env.cli(['stop'], { timeoutMs: 30_000 });
    }
  });

  it('serve: its LSP flags open a session of their own ("" is none, not all)', T, async () => {
    await env.startDaemon();
    const { lspFile, client, pid, stderr } = await serveWithLspFlags();
    try {
      const served = await until(
        'the serve session',
        async () => (await sessions()).find((s) => s.spec.lspConfig !== null),
        { timeoutMs: 20_000 },
      ).catch((err: Error) => {
        throw new Error(`${err.message}; serve stderr: ${stderr()}`);
      });
      assert.deepEqual(served.spec.lspCeiling, [], '"" means no language server');
      assert.equal(served.spec.lspConfig, realpathSync(lspFile));
      const all = await sessions();
      assert.equal(all.length, 2, 'not the default session: the LSP flags are in the key');
      const own = all.find((s) => s.metadata.name === 'default');
      assert.equal(own?.spec.lspCeiling, null);
      assert.equal(own?.spec.lspConfig, null);
    } finally {
      await client.close();
      await until(`serve ${pid} to exit`, () => !isAlive(pid), { timeoutMs: 5000 });
    }
  });
});
