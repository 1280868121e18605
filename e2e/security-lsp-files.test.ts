/**
 * e2e attack (issue 31): the files behind the `lsp_*` tools are not what they seem. Something
 * in the workspace replaces documents the server has open with FIFOs; a language server
 * answers locations in FIFOs and at /dev/zero; a repository ships `creds.txt` as a symlink to
 * `~/.aws/credentials`. A FIFO opened the ordinary way blocks one of libuv's four file threads
 * for good, and four of them freeze every file operation of the daemon, every workspace's.
 * Every call must be answered, no such file quoted, and other workspaces served meanwhile.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { LocationView } from '../lsp/requests.js';
import { uriOf } from '../lsp/workspace-files.js';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { until } from '../testing/until.js';
import { TestEnv } from './harness.js';
import { fakeEntry, lspAgent, allTextOf, type LspAgent } from './lsp-agent.js';

const T = { timeout: 120_000 };
/** A CLI call that hangs is the failure this file is about: fail it long before the test. */
const CLI_TIMEOUT = { timeoutMs: 20_000 };
const SECRET = 'aws_secret_access_key = wJalrXUtnFEMI';

describe('security: the files behind the lsp tools (e2e)', () => {
  let env: TestEnv;
  let agent: LspAgent | undefined;
  const fifos: string[] = [];

  beforeEach(async () => {
    env = new TestEnv();
    const config = path.join(env.root, 'lsp.json');
    env.write(config, { fake: fakeEntry(env) });
    await env.startDaemon();
    agent = await lspAgent(env, { args: ['--lsp-config', config] });
    await until('the lsp tools to be listed', async () =>
      (await agent!.toolNames()).includes('lsp_definition'),
    );
  });

  afterEach(async () => {
    // A daemon stuck on a FIFO (the failure under test) is released, so it can stop.
    releaseReaders(fifos.splice(0));
    await agent?.close();
    await env.cli(['stop'], CLI_TIMEOUT);
    await env.cleanup();
  });

  /** A document of the workspace whose lines name `targets`: the fake's definitions. */
  function naming(name: string, targets: readonly string[]): void {
    const lines = targets.map((t) => (t.startsWith('file:') ? t : uriOf(t)));
    writeFileSync(path.join(env.workspace, name), `${lines.join('\n')}\n`);
  }

  const at = (file: string) => ({ file, line: 1, column: 1 });

  test(
    'FIFOs where documents were and in locations stall neither the calls nor another workspace',
    T,
    async () => {
      const ws = env.workspace;
      const documents = ['a1.txt', 'a2.txt', 'a3.txt', 'a4.txt'];
      for (const name of documents) {
        writeFileSync(path.join(ws, name), 'hello\n');
        const r = await agent!.callRaw('lsp_hover', at(name));
        assert.notEqual(r.isError, true, allTextOf(r));
      }
      const pipes = ['p1.txt', 'p2.txt', 'p3.txt', 'p4.txt', 'p5.txt'].map((p) => path.join(ws, p));
      naming('ask.txt', pipes);
      for (const name of documents) rmSync(path.join(ws, name));
      for (const fifo of [...documents.map((d) => path.join(ws, d)), ...pipes]) {
        makeFifo(fifo);
        fifos.push(fifo);
      }

      // Not awaited yet: on a daemon that blocks on a FIFO they never come.
      const hover = agent!.callRaw('lsp_hover', at('ask.txt'));
      const definitions = pipes.map(() => agent!.callRaw('lsp_definition', at('ask.txt')));
      const fifoHover = agent!.callRaw('lsp_hover', at('a1.txt'));
      for (const call of [hover, fifoHover, ...definitions]) call.catch(() => undefined);

      const other = path.join(env.root, 'other');
      env.write(path.join(other, '.mcp.json'), { mcpServers: {} });
      const servers = await env.cli(['get', 'servers', '--workspace', other], CLI_TIMEOUT);
      assert.equal(servers.code, 0, `another workspace is answered: ${servers.stderr}`);

      const hovered = await hover;
      assert.notEqual(hovered.isError, true, allTextOf(hovered));
      const refused = await fifoHover;
      assert.equal(refused.isError, true);
      assert.match(allTextOf(refused), /a1\.txt is not a regular file/);
      for (const call of definitions) {
        const r = await call;
        assert.notEqual(r.isError, true, allTextOf(r));
        const { locations } = r.structuredContent as { locations: LocationView[] };
        assert.deepEqual(
          locations.map((l) => [l.file, l.text]),
          pipes.map((p) => [path.basename(p), undefined]),
        );
      }
    },
  );

  test(
    '/dev/zero and a symlink to a secret outside the workspace are never quoted',
    T,
    async () => {
      const awsDir = path.join(env.home, '.aws');
      mkdirSync(awsDir, { recursive: true });
      writeFileSync(path.join(awsDir, 'credentials'), `${SECRET}\n`);
      symlinkSync(path.join(awsDir, 'credentials'), path.join(env.workspace, 'creds.txt'));
      writeFileSync(path.join(env.workspace, 'main.txt'), 'main\n');
      naming('ask.txt', [
        'file:///dev/zero',
        path.join(env.workspace, 'creds.txt'),
        path.join(env.workspace, 'main.txt'),
      ]);

      const direct = await agent!.callRaw('lsp_hover', at('creds.txt'));
      assert.equal(direct.isError, true, 'the link itself is refused');
      assert.match(allTextOf(direct), /leads outside the workspace/);

      const answers = await Promise.all(
        [1, 2, 3].map(() => agent!.callRaw('lsp_definition', at('ask.txt'))),
      );
      for (const r of answers) {
        assert.notEqual(r.isError, true, allTextOf(r));
        const { locations } = r.structuredContent as { locations: LocationView[] };
        assert.deepEqual(
          locations.map((l) => [l.file, l.text]),
          [
            ['/dev/zero', undefined],
            ['creds.txt', undefined],
            ['main.txt', 'main'],
          ],
        );
        assert.ok(!allTextOf(r).includes('wJalr'), 'the secret is not in the answer');
      }
    },
  );
});
