/**
 * e2e (issue #24): code intelligence through `mcpctl serve`. An agent (the SDK's Client) runs
 * the built serve with `--lsp-config` naming typescript-language-server on a small multi-file
 * project; the same questions go to a direct LSP client (lsp/'s LspConnection, in this process)
 * on the same files, and the answers must be equal. One warm server each for the whole file.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LspConnection } from '../lsp/connection.js';
import * as direct from '../lsp/requests.js';
import { typescriptServer } from '../lsp/testing/servers.js';
import { FILES, spot, writeProject } from '../lsp/testing/typescript-project.js';
import { until } from '../testing/until.js';
import { TestEnv, isAlive } from './harness.js';
import {
  LSP_TOOLS,
  languageServers,
  lspAgent,
  lspReady,
  allTextOf,
  typescriptEntry,
  untilLanguageServers,
  type LspAgent,
} from './lsp-agent.js';

const T = { timeout: 120_000 };

const requireHere = createRequire(import.meta.url);
const moduleDir = (pkg: string): string => path.dirname(requireHere.resolve(`${pkg}/package.json`));

/** The `.lsp.json` example of the README's "Language servers (`.lsp.json`)" section. */
function readmeExample(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Language servers (`.lsp.json`)'));
  const block = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
  assert.ok(block, 'the README section has a json block');
  return block;
}

describe('lsp_* tools through serve equal a direct LSP client', () => {
  let env: TestEnv;
  let agent: LspAgent;
  let conn: LspConnection;
  let lspConfig: string;

  before(async () => {
    env = new TestEnv();
    writeProject(env.workspace);
    lspConfig = path.join(env.root, 'lsp.json');
    env.write(lspConfig, { typescript: typescriptEntry(env) });
    conn = new LspConnection(typescriptServer(env.workspace));
    [agent] = await Promise.all([
      lspAgent(env, { args: ['--lsp-config', lspConfig] }),
      conn.open(),
    ]);
    await untilLanguageServers(env, 'typescript to be Ready', (s) => lspReady(s.get('typescript')));
    await until('the lsp tools to be listed', async () => {
      const names = await agent.toolNames();
      return LSP_TOOLS.every((t) => names.includes(t));
    });
  });

  after(async () => {
    await agent?.close();
    await conn?.close();
    await env.cli(['stop']);
    await env.cleanup();
  });

  test('the seven tools are listed, each with a schema for its arguments', T, async () => {
    const { tools } = await agent.client.listTools();
    for (const name of LSP_TOOLS) {
      const tool = tools.find((t) => t.name === name);
      assert.ok(tool, `${name} is listed`);
      assert.equal(tool.inputSchema.type, 'object');
    }
    const servers = await languageServers(env);
    const ts = servers.get('typescript');
    assert.ok(ts?.status.pid !== undefined && isAlive(ts.status.pid), 'one live process');
  });

  test('definition, references and hover equal the direct answers', T, async () => {
    const at = { file: 'src/main.ts', ...spot(FILES['src/main.ts'], 'totalArea', 2, 2) };
    const def = await agent.call<{ locations: direct.LocationView[] }>('lsp_definition', at);
    assert.deepEqual(def, await direct.definition(conn, at));
    const decl = spot(FILES['src/shapes.ts'], 'totalArea');
    assert.deepEqual(
      def.locations.map((l) => `${l.file}:${l.line}:${l.column}`),
      [`src/shapes.ts:${decl.line}:${decl.column}`],
      'the declaration, as an editor shows it',
    );

    const circle = { file: 'src/shapes.ts', ...spot(FILES['src/shapes.ts'], 'Circle') };
    const refs = await agent.call<{ locations: direct.LocationView[] }>('lsp_references', circle);
    const sorted = (l: { locations: direct.LocationView[] }) =>
      l.locations.map((x) => `${x.file}:${x.line}:${x.column}`).sort();
    assert.deepEqual(sorted(refs), sorted(await direct.references(conn, circle)));
    assert.equal(refs.locations.length, 5);

    const hoverAt = { file: 'src/shapes.ts', ...spot(FILES['src/shapes.ts'], 'totalArea') };
    const hover = await agent.call<{ contents: string }>('lsp_hover', hoverAt);
    assert.deepEqual(hover, await direct.hover(conn, hoverAt));
    assert.match(hover.contents, /The sum of the areas/);
  });

  test('document and workspace symbols, and a rename preview', T, async () => {
    const file = { file: 'src/shapes.ts' };
    const symbols = await agent.call<{ symbols: direct.SymbolView[] }>(
      'lsp_document_symbols',
      file,
    );
    assert.deepEqual(symbols, await direct.documentSymbols(conn, file));
    assert.ok(symbols.symbols.some((s) => s.name === 'Circle'));

    const query = { query: 'totalArea' };
    const ws = await agent.call<{ symbols: direct.WorkspaceSymbolView[] }>(
      'lsp_workspace_symbols',
      query,
    );
    assert.deepEqual(ws, await direct.workspaceSymbols(conn, query));
    assert.ok(ws.symbols.some((s) => s.file === 'src/shapes.ts' && s.name === 'totalArea'));

    const rename = {
      file: 'src/shapes.ts',
      ...spot(FILES['src/shapes.ts'], 'totalArea'),
      newName: 'sumOfAreas',
    };
    const preview = await agent.call<{ changes: direct.FileEditsView[] }>('lsp_rename', rename);
    assert.deepEqual(preview, await direct.rename(conn, rename));
    assert.deepEqual(preview.changes.map((c) => c.file).sort(), ['src/main.ts', 'src/shapes.ts']);
    // A preview: nothing was written.
    assert.equal(
      readFileSync(path.join(env.workspace, 'src/shapes.ts'), 'utf8'),
      FILES['src/shapes.ts'],
    );
  });

  test(
    'diagnostics torture: 20 rewrites on disk, every answer is about the content now',
    T,
    async () => {
      const file = path.join(env.workspace, 'src/torture.ts');
      for (let round = 1; round <= 20; round += 1) {
        // Errors come and go and move: round r has an error on line r when r is odd.
        const lines = Array.from(
          { length: 22 },
          (_, i) => `export const v${i + 1}_${round} = ${i + 1};`,
        );
        if (round % 2 === 1)
          lines[round - 1] = `export const bad${round}: number = 'not a number';`;
        writeFileSync(file, `${lines.join('\n')}\n`);
        // "Still analysing" may come (then ask again); diagnostics of an older content never may.
        const answer = await until(`round ${round}: diagnostics of the content now`, async () => {
          const result = await agent.callRaw('lsp_diagnostics', { file: 'src/torture.ts' });
          const view = result.structuredContent as direct.DiagnosticsView | undefined;
          if (view?.state === 'current') return view;
          if (/analys/i.test(allTextOf(result))) return undefined;
          throw new Error(`unexpected answer: ${allTextOf(result)}`);
        });
        const errors = answer.diagnostics.filter((d) => d.severity === 'error').map((d) => d.line);
        assert.deepEqual(errors, round % 2 === 1 ? [round] : [], `round ${round}`);
      }
    },
  );

  test('hostile and careless arguments get a clear isError, never a crash', T, async () => {
    // A file no server handles is refused for that; one a server would handle, for being outside.
    const passwd = await agent.callRaw('lsp_hover', {
      file: '../../etc/passwd',
      line: 1,
      column: 1,
    });
    assert.equal(passwd.isError, true);
    const outside = await agent.callRaw('lsp_hover', {
      file: '../../etc/passwd.ts',
      line: 1,
      column: 1,
    });
    assert.equal(outside.isError, true);
    assert.match(allTextOf(outside), /outside the workspace/);
    const abs = await agent.callRaw('lsp_document_symbols', { file: '/etc/hostname' });
    assert.equal(abs.isError, true);
    const py = await agent.callRaw('lsp_document_symbols', { file: 'tool.py' });
    assert.equal(py.isError, true);
    assert.match(allTextOf(py), /\.ts/, 'names the extensions that are configured');
    const negative = await agent.callRaw('lsp_hover', { file: 'src/main.ts', line: -1, column: 1 });
    assert.equal(negative.isError, true);
    assert.match(allTextOf(negative), /line/);
    // The server still answers after all that.
    const again = await agent.call<{ symbols: unknown[] }>('lsp_document_symbols', {
      file: 'src/shapes.ts',
    });
    assert.ok(again.symbols.length > 0);
  });
});

describe("the README's .lsp.json example, as written, on a cold server", () => {
  let env: TestEnv;
  let agent: LspAgent;

  before(async () => {
    env = new TestEnv();
    writeProject(env.workspace);
    // What the example expects: typescript-language-server on PATH, TypeScript in the
    // workspace's node_modules (6.0 here, the dev dependency `typescript-6`).
    const bin = path.join(env.root, 'bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(
      path.join(moduleDir('typescript-language-server'), 'lib', 'cli.mjs'),
      path.join(bin, 'typescript-language-server'),
    );
    mkdirSync(path.join(env.workspace, 'node_modules'));
    symlinkSync(moduleDir('typescript-6'), path.join(env.workspace, 'node_modules', 'typescript'));
    const lspConfig = path.join(env.root, 'lsp.json');
    writeFileSync(lspConfig, readmeExample());
    agent = await lspAgent(env, {
      args: ['--lsp-config', lspConfig],
      extraEnv: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` },
    });
    await untilLanguageServers(env, 'typescript to be Ready', (s) => lspReady(s.get('typescript')));
  });

  after(async () => {
    await agent?.close();
    await env.cli(['stop']);
    await env.cleanup();
  });

  test(
    "the first lsp_definition answers the declaration, not the syntax server's import line",
    T,
    async () => {
      // The server's first question: its project is not loaded yet, and nothing was opened.
      const at = { file: 'src/main.ts', ...spot(FILES['src/main.ts'], 'totalArea', 2, 2) };
      const def = await agent.call<{ locations: direct.LocationView[]; partial?: string }>(
        'lsp_definition',
        at,
      );
      const decl = spot(FILES['src/shapes.ts'], 'totalArea');
      assert.deepEqual(
        def.locations.map((l) => `${l.file}:${l.line}:${l.column}`),
        [`src/shapes.ts:${decl.line}:${decl.column}`],
      );
      assert.equal(def.partial, undefined, 'a complete answer');
    },
  );

  test(
    'lsp_diagnostics of a file an earlier call opened answers at once, every time',
    // Well below the 30 s a call waited for a publish that had already come.
    { timeout: 20_000 },
    async () => {
      await agent.call('lsp_hover', { file: 'src/shapes.ts', line: 1, column: 1 });
      // Another file's diagnostics: by their answer the server has published for the open
      // documents, src/shapes.ts included (typescript-language-server checks them together).
      await agent.call('lsp_diagnostics', { file: 'src/main.ts' });
      for (let ask = 1; ask <= 3; ask += 1) {
        const result = await agent.callRaw('lsp_diagnostics', { file: 'src/shapes.ts' });
        assert.equal(result.isError, undefined, `ask ${ask}: ${allTextOf(result)}`);
        const view = result.structuredContent as direct.DiagnosticsView;
        assert.equal(view.state, 'current');
        assert.deepEqual(view.state === 'current' ? view.diagnostics : undefined, []);
      }
    },
  );
});
