/**
 * e2e (issue #24): language servers live, through the same controller as MCP servers. The
 * built daemon and serve, real servers (typescript-language-server, bash-language-server) and
 * the scriptable fake:
 * - a project's `.lsp.json` is gated: PendingApproval and nothing spawned until `approve`; an MCP
 *   approval of the same name approves nothing here; `--allowed-lsp-server-names` narrows;
 * - an agent that answers elicitation is asked about the language server (as
 *   `languageserver/NAME`), and its answer approves that language server only;
 * - `.lsp.json` edits: a second server starts while the first keeps its pid; a `settings` edit
 *   reaches the running server without a restart; a removed server's process ends;
 * - sharing: two agents on one workspace, one process; two workspaces, two; the first agent
 *   leaving leaves the server to the second;
 * - a SIGKILLed server is restarted and answers; `mcpctl stop` leaves no language server.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ConnectionList } from '../cli/objects.js';
import type { DiagnosticsView } from '../lsp/requests.js';
import { writeProject } from '../lsp/testing/typescript-project.js';
import { until } from '../testing/until.js';
import { TestEnv, condition, isAlive, processesMentioning } from './harness.js';
import {
  bashEntry,
  fakeEntry,
  languageServers,
  lspAgent,
  lspCondition,
  lspReady,
  allTextOf,
  typescriptEntry,
  untilLanguageServers,
  type LspAgent,
} from './lsp-agent.js';

const T = { timeout: 180_000 };

/**
 * A `source` of a path only known at run time: bash-language-server reports it ("could not be
 * analyzed") only while its settings enable source errors.
 */
const SCRIPT = [
  '#!/bin/bash',
  'NAME="world"',
  'greet() {',
  '  echo "hi $NAME"',
  '}',
  'source "$HOME/missing-$NAME.sh"',
  'greet',
  '',
].join('\n');

function sourceErrorLines(view: DiagnosticsView | undefined): number[] {
  if (view?.state !== 'current') return [-1];
  return view.diagnostics
    .filter((d) => /Source command could not be analyzed/.test(d.message))
    .map((d) => d.line);
}

describe('language servers through the controller', () => {
  let env: TestEnv;
  const agents: LspAgent[] = [];

  beforeEach(() => {
    env = new TestEnv();
    writeProject(env.workspace);
  });

  afterEach(async () => {
    for (const a of agents.splice(0)) await a.close().catch(() => undefined);
    await env.cli(['stop']);
    await env.cleanup();
  });

  async function agent(opts: Parameters<typeof lspAgent>[1] = {}) {
    const a = await lspAgent(env, opts);
    agents.push(a);
    return a;
  }

  test(
    'a project .lsp.json waits for approval; an MCP approval of the same name is not one',
    T,
    async () => {
      // The same name in both kinds: `ts` the MCP server (a fixture) and `ts` the language server.
      env.write(env.mcpJsonPath, { mcpServers: { ts: env.fixture('ts') } });
      env.write(path.join(env.workspace, '.lsp.json'), { ts: fakeEntry(env) });
      await env.startDaemon();
      const pending = await untilLanguageServers(
        env,
        'ts to be pending',
        (s) => lspCondition(s.get('ts'), 'Admitted')?.reason === 'PendingApproval',
      );
      assert.equal(pending.get('ts')?.status.pid, undefined);
      assert.deepEqual(
        processesMentioning(`--mcpctl-test=${env.root}`),
        [],
        'nothing spawned before approval',
      );

      // Ambiguous: the name exists in both kinds, so a bare name decides nothing.
      const bare = await env.cli(['approve', 'ts']);
      assert.equal(bare.code, 1);
      assert.match(bare.stderr, /languageserver\/ts/);

      const mcp = await env.cli(['approve', 'server/ts']);
      assert.equal(mcp.code, 0, mcp.stderr);
      await env.untilServers(
        (s) => s.get('ts')?.status.pid !== undefined,
        'the MCP server ts to run',
      );
      const after = await languageServers(env);
      assert.equal(lspCondition(after.get('ts'), 'Admitted')?.reason, 'PendingApproval');
      assert.equal(after.get('ts')?.status.pid, undefined, 'the language server still waits');

      // wait watches the language server, not the MCP server of the same name (Ready already).
      const notYet = await env.cli([
        'wait',
        'languageserver/ts',
        '--for=condition=Ready',
        '--timeout=0',
      ]);
      assert.equal(notYet.code, 1, notYet.stdout);
      assert.match(notYet.stderr, /languageserver\/ts \(now Ready=False NotAdmitted/);
      // A wait started before the approval ends when the approval makes it Ready.
      const waiting = env.cli([
        'wait',
        'languageserver/ts',
        '--for=condition=Ready',
        '--timeout=60s',
      ]);
      const lsp = await env.cli(['approve', 'languageserver/ts']);
      assert.equal(lsp.code, 0, lsp.stderr);
      const waited = await waiting;
      assert.equal(waited.code, 0, waited.stderr);
      assert.equal(waited.stdout, 'languageserver/ts condition met\n');
      const ready = await untilLanguageServers(env, 'ts to be Ready', (s) => lspReady(s.get('ts')));
      assert.equal(lspCondition(ready.get('ts'), 'Admitted')?.reason, 'Approved');
      assert.ok(isAlive(ready.get('ts')!.status.pid!));
      // The needle above finds the server once it runs: its silence before was no blind spot.
      assert.deepEqual(processesMentioning(`--mcpctl-test=${env.root}`), [
        ready.get('ts')!.status.pid,
      ]);
    },
  );

  test(
    'an agent answering elicitation approves the language server, never the MCP server of its name',
    T,
    async () => {
      env.write(env.mcpJsonPath, { mcpServers: { fake: env.fixture('fake') } });
      env.write(path.join(env.workspace, '.lsp.json'), { fake: fakeEntry(env) });
      writeFileSync(path.join(env.workspace, 'a.txt'), 'hello\n');
      const questions: string[] = [];
      const a = await agent({
        elicit: (message): ElicitResult => {
          questions.push(message);
          // Approves what names the language server; the MCP server's question is cancelled.
          return /the language server "languageserver\/fake"/.test(message)
            ? { action: 'accept', content: { decision: 'approve' } }
            : { action: 'cancel' };
        },
      });
      await until('the lsp tools', async () => (await a.toolNames()).includes('lsp_diagnostics'), {
        timeoutMs: 30_000,
      });
      const servers = await untilLanguageServers(env, 'fake Ready', (s) => lspReady(s.get('fake')));
      assert.equal(lspCondition(servers.get('fake'), 'Admitted')?.reason, 'Approved');
      const question = questions.find((q) => q.includes('languageserver/fake')) ?? '';
      assert.match(question, /\.lsp\.json" asks to start the language server/);
      assert.match(question, /fake-server\.js/);
      const r = await a.callRaw('lsp_diagnostics', { file: 'a.txt' });
      assert.notEqual(r.isError, true, allTextOf(r));

      // The MCP server of the same name was asked about apart, and still waits.
      await until('the MCP server asked about', () =>
        questions.some((q) => /the MCP server "fake"/.test(q)),
      );
      const mcp = await env.servers();
      assert.equal(condition(mcp.get('fake'), 'Admitted')?.reason, 'PendingApproval');
      assert.equal(mcp.get('fake')?.status.pid, undefined);
      assert.ok(!(await a.toolNames()).some((t) => t.startsWith('fake__')));
    },
  );

  test('--allowed-lsp-server-names narrows; "" allows none', T, async () => {
    const config = path.join(env.root, 'lsp.json');
    env.write(config, {
      one: fakeEntry(env),
      two: fakeEntry(env, { extensionToLanguage: { '.md': 'markdown' } }),
    });
    await env.startDaemon(['--lsp-config', config, '--allowed-lsp-server-names', 'two']);
    const servers = await untilLanguageServers(
      env,
      'two Ready, one refused',
      (s) =>
        lspReady(s.get('two')) && lspCondition(s.get('one'), 'Admitted')?.reason === 'NotAllowed',
    );
    assert.equal(servers.get('one')?.status.pid, undefined);
    const why = await env.cli(['why', 'languageserver/one']);
    assert.equal(why.code, 0, why.stderr);
    assert.match(why.stdout, /allowed-lsp-server-names/);
  });

  test(
    'edits: a second server starts beside the warm first; settings reach it live; removed ends it',
    T,
    async () => {
      writeFileSync(path.join(env.workspace, 'run.sh'), SCRIPT);
      const config = path.join(env.root, 'lsp.json');
      env.write(config, { typescript: typescriptEntry(env) });
      const a = await agent({ args: ['--lsp-config', config] });
      const first = await untilLanguageServers(env, 'typescript Ready', (s) =>
        lspReady(s.get('typescript')),
      );
      const tsPid = first.get('typescript')!.status.pid!;
      await until('the lsp tools', async () => (await a.toolNames()).includes('lsp_hover'));

      const bashOn = { bashIde: { enableSourceErrorDiagnostics: true } };
      env.write(config, {
        typescript: typescriptEntry(env),
        bash: bashEntry(env, { settings: bashOn }),
      });
      const both = await untilLanguageServers(env, 'bash Ready too', (s) =>
        lspReady(s.get('bash')),
      );
      assert.equal(both.get('typescript')!.status.pid, tsPid, 'the first server kept its process');
      const bashPid = both.get('bash')!.status.pid!;
      await until(
        'the source error is reported',
        async () => {
          const r = await a.callRaw('lsp_diagnostics', { file: 'run.sh' });
          return sourceErrorLines(r.structuredContent as DiagnosticsView).length === 1;
        },
        { timeoutMs: 30_000 },
      );

      const bashOff = { bashIde: { enableSourceErrorDiagnostics: false } };
      env.write(config, {
        typescript: typescriptEntry(env),
        bash: bashEntry(env, { settings: bashOff }),
      });
      await until(
        'the new settings reach the running server',
        async () => {
          const r = await a.callRaw('lsp_diagnostics', { file: 'run.sh' });
          return (
            (r.structuredContent as DiagnosticsView | undefined)?.state === 'current' &&
            sourceErrorLines(r.structuredContent as DiagnosticsView).length === 0
          );
        },
        { timeoutMs: 30_000 },
      );
      const afterSettings = await languageServers(env);
      assert.equal(afterSettings.get('bash')!.status.pid, bashPid, 'settings: no restart');
      assert.equal(afterSettings.get('bash')!.status.restarts, 0);

      // extensionToLanguage: routing only, no restart.
      env.write(config, {
        typescript: typescriptEntry(env, {
          extensionToLanguage: { '.ts': 'typescript', '.mts': 'typescript' },
        }),
        bash: bashEntry(env, { settings: bashOff }),
      });
      await until('.mts routed to typescript', async () => {
        const r = await a.callRaw('lsp_document_symbols', { file: 'src/none.mts' });
        return !/no language server|configured/i.test(allTextOf(r)) || undefined;
      });
      assert.equal((await languageServers(env)).get('typescript')!.status.pid, tsPid);

      env.write(config, {
        typescript: typescriptEntry(env, {
          extensionToLanguage: { '.ts': 'typescript', '.mts': 'typescript' },
        }),
      });
      await until(
        'bash gone with its process',
        async () => !(await languageServers(env)).has('bash') && !isAlive(bashPid),
      );
      assert.equal((await languageServers(env)).get('typescript')!.status.pid, tsPid);
      const symbols = await a.call<{ symbols: unknown[] }>('lsp_document_symbols', {
        file: 'src/shapes.ts',
      });
      assert.ok(symbols.symbols.length > 0, 'the warm server still answers');
    },
  );

  test(
    'sharing: one process per workspace for every agent; the last agent keeps it',
    T,
    async () => {
      const config = path.join(env.root, 'lsp.json');
      env.write(config, { fake: fakeEntry(env) });
      const other = path.join(env.root, 'ws2');
      mkdirSync(other, { recursive: true });
      writeFileSync(path.join(env.workspace, 'a.txt'), 'hello\n');
      writeFileSync(path.join(other, 'b.txt'), 'hello\n');
      const args = ['--lsp-config', config];
      const a1 = await agent({ args });
      const a2 = await agent({ args });
      const b1 = await agent({ workspace: other, args });
      for (const [a, file] of [
        [a1, 'a.txt'],
        [a2, 'a.txt'],
        [b1, 'b.txt'],
      ] as const) {
        await until('the agent to see the lsp tools', async () =>
          (await a.toolNames()).includes('lsp_diagnostics'),
        );
        // The fake answers pulled diagnostics (an error per line with ERROR).
        const r = await a.callRaw('lsp_diagnostics', { file });
        assert.notEqual(r.isError, true, allTextOf(r));
      }
      const connections = await env.json<ConnectionList>(['get', 'connections', '-o', 'json']);
      const lsp = connections.items.filter((c) => c.spec.kind === 'LanguageServer');
      assert.equal(lsp.length, 2, 'one process per workspace: two workspaces, two processes');
      const table = await env.cli(['get', 'connections']);
      assert.match(table.stdout, /KIND/);
      assert.match(table.stdout, /LanguageServer/);
      const here = (await languageServers(env)).get('fake')!;
      const there = (await languageServers(env, ['--workspace', other])).get('fake')!;
      assert.notEqual(here.status.pid, there.status.pid);
      assert.notEqual(here.status.connectionId, there.status.connectionId);

      await a1.close();
      agents.splice(agents.indexOf(a1), 1);
      const r = await a2.callRaw('lsp_diagnostics', { file: 'a.txt' });
      assert.notEqual(r.isError, true, allTextOf(r));
      assert.equal(
        (await languageServers(env)).get('fake')!.status.pid,
        here.status.pid,
        'the same process serves the second agent',
      );
    },
  );

  test('SIGKILL: restarted and answering; `mcpctl stop` leaves no language server', T, async () => {
    const config = path.join(env.root, 'lsp.json');
    env.write(config, { typescript: typescriptEntry(env) });
    const a = await agent({ args: ['--lsp-config', config] });
    const first = await untilLanguageServers(env, 'typescript Ready', (s) =>
      lspReady(s.get('typescript')),
    );
    const pid = first.get('typescript')!.status.pid!;
    await until('the lsp tools', async () => (await a.toolNames()).includes('lsp_hover'));
    const before = await a.call<{ symbols: unknown[] }>('lsp_document_symbols', {
      file: 'src/shapes.ts',
    });
    process.kill(pid, 'SIGKILL');
    const again = await untilLanguageServers(env, 'a new process', (s) => {
      const ts = s.get('typescript');
      return lspReady(ts) && ts!.status.pid !== pid;
    });
    assert.equal(again.get('typescript')!.status.restarts, 1);
    const after = await a.call<{ symbols: unknown[] }>('lsp_document_symbols', {
      file: 'src/shapes.ts',
    });
    assert.deepEqual(after, before);

    const newPid = again.get('typescript')!.status.pid!;
    const stop = await env.cli(['stop']);
    assert.equal(stop.code, 0, stop.stderr);
    await until(
      'no language server process left',
      () => !isAlive(newPid) && processesMentioning(path.join(env.root, 'bin')).length === 0,
    );
  });
});
