/**
 * The `lsp_*` tools end to end in one process: an SDK Client ↔ gateway ↔ a fake session port
 * whose language server is a real, warm typescript-language-server on a small project. Every
 * answer is compared with what lsp/requests.ts answers directly on the same connection.
 * One server serves every test of this file.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import {
  askLanguageServer,
  serverViews,
  type LspAnswer,
  type LspArgs,
  type LspQuestion,
  type LspServerView,
} from '../controller/lsp-questions.js';
import type { LspTarget } from '../controller/lsp-target.js';
import type { SessionAttachment } from '../controller/session-attachment.js';
import { LspConnection } from '../lsp/connection.js';
import {
  definition,
  diagnostics,
  documentSymbols,
  hover,
  references,
  rename,
  workspaceSymbols,
} from '../lsp/requests.js';
import { groupAlive } from '../proc/index.js';
import { MAX_ANSWER_ITEMS } from '../lsp/answer-limits.js';
import { fakeServer, typescriptServer } from '../lsp/testing/servers.js';
import { FILES, spot, writeProject } from '../lsp/testing/typescript-project.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { createGatewayServer, type MetaToolsMode } from './gateway.js';
import { LSP_TOOL_NAMES } from './lsp-arguments.js';
import type {
  ApprovalRequest,
  DecideOutcome,
  ServerTools,
  SessionPort,
  WhyText,
} from './session-port.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 60_000 };

/** A session with no MCP servers whose language servers the test sets, asked as a session asks. */
class LanguageServersPort implements SessionPort {
  targets: LspTarget[] = [];
  readonly #listeners: (() => void)[] = [];

  /** The session's language servers changed: what a settled burst announces. */
  set(targets: LspTarget[]): void {
    this.targets = targets;
    for (const listener of this.#listeners) listener();
  }

  languageServers(): Promise<LspServerView[]> {
    return Promise.resolve(serverViews(this.targets));
  }
  /** Asked as a session asks (controller/lsp-questions.ts), of the targets the test set. */
  ask<Q extends LspQuestion>(q: Q, args: LspArgs<Q>, signal: AbortSignal): Promise<LspAnswer<Q>> {
    return askLanguageServer(this.targets, q, args, signal);
  }
  list(): Promise<ServerTools[]> {
    return Promise.resolve([]);
  }
  request(): Promise<Record<string, unknown>> {
    return Promise.reject(new Error('no MCP server here'));
  }
  attach(): SessionAttachment {
    return {
      rootsChanged: () => undefined,
      subscribe: () => Promise.resolve(),
      unsubscribe: () => Promise.resolve(),
      setLogLevel: () => Promise.resolve(),
      detach: () => undefined,
    };
  }
  warn(): void {}
  why(server: string): Promise<WhyText> {
    return Promise.resolve({ reason: 'Unknown', message: `no server ${server}`, action: 'none' });
  }
  unavailable(): Promise<(WhyText & { readonly server: string })[]> {
    return Promise.resolve([]);
  }
  decide(): Promise<DecideOutcome> {
    return Promise.reject(new Error('nothing to decide'));
  }
  pendingApprovals(): Promise<ApprovalRequest[]> {
    return Promise.resolve([]);
  }
  settled(): Promise<void> {
    return Promise.resolve();
  }
  onListChanged(listener: () => void): void {
    this.#listeners.push(listener);
  }
  onPendingApproval(): void {}
  heldTools(): Promise<[]> {
    return Promise.resolve([]);
  }
  onToolsHeld(): void {}
  decideTools(): Promise<DecideOutcome> {
    return Promise.reject(new Error('not here'));
  }
  loginsRequired(): Promise<string[]> {
    return Promise.resolve([]);
  }
  onLoginRequired(): void {}
  close(): Promise<void> {
    return Promise.resolve();
  }
}

interface Agent {
  readonly client: Client;
  listChanged: number;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

async function connect(port: SessionPort, metaTools: MetaToolsMode = 'off'): Promise<Agent> {
  const logged: string[] = [];
  const gateway = createGatewayServer(port, {
    version: '0.0.0-test',
    log: (m) => logged.push(m),
    metaTools,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const agent: Agent = {
    client,
    listChanged: 0,
    async call(name, args) {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    },
    async close() {
      await client.close();
      await gateway.server.close();
      gateway.detach();
      // Nothing but the agent's mistakes and the server's errors happened: no bug was logged.
      assert.deepEqual(logged, []);
    },
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    agent.listChanged += 1;
  });
  await gateway.server.connect(b);
  await client.connect(a);
  return agent;
}

/** A successful answer: its structured content, checked equal to its text. */
function answerOf(r: CallToolResult): unknown {
  assert.notEqual(r.isError, true, textOf(r));
  assert.deepEqual(JSON.parse(textOf(r)), r.structuredContent);
  return r.structuredContent;
}

function errorOf(r: CallToolResult): string {
  assert.equal(r.isError, true, JSON.stringify(r));
  return textOf(r);
}

const BROKEN = 'export const n: number = "not a number";\n';

describe('lsp_* tools through the gateway, on a warm typescript-language-server', T, () => {
  let dir: TempDir;
  let conn: LspConnection;
  let ready: LspTarget;
  const pyright: LspTarget = {
    name: 'pyright',
    extensionToLanguage: { '.py': 'python' },
    connection: undefined,
    unavailable: {
      reason: 'PendingApproval',
      message: 'pyright comes from .lsp.json and waits for approval',
      action: "run 'mcpctl approve pyright'",
    },
  };
  const port = new LanguageServersPort();
  let agent: Agent;

  before(async () => {
    dir = tempDir('mcpctl-lsp-tools-');
    writeProject(dir.path);
    writeFileSync(dir.file('src/broken.ts'), BROKEN);
    conn = new LspConnection(typescriptServer(dir.path));
    await conn.open();
    ready = {
      name: 'typescript',
      extensionToLanguage: { '.ts': 'typescript', '.tsx': 'typescriptreact' },
      connection: conn,
    };
    agent = await connect(port);
  });

  after(async () => {
    await agent.close();
    const pid = conn.pid!;
    await conn.close();
    await until('the server group to be gone', () => !groupAlive(pid), { timeoutMs: 10_000 });
    dir.remove();
  });

  it(
    'lists the seven tools only while a language server is Ready, with list_changed',
    T,
    async () => {
      assert.deepEqual((await agent.client.listTools()).tools, []);
      port.set([{ ...ready, connection: undefined, unavailable: pyright.unavailable }]);
      assert.deepEqual((await agent.client.listTools()).tools, []);

      const before = agent.listChanged;
      port.set([ready, pyright]);
      await until('tools/list_changed', () => agent.listChanged > before);
      const { tools } = await agent.client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        [...LSP_TOOL_NAMES],
      );
      for (const tool of tools) {
        assert.equal(tool.outputSchema?.type, 'object', tool.name);
        assert.match(tool.description ?? '', /ready now: typescript \(\.ts, \.tsx\)\.$/);
      }

      port.set([]);
      assert.deepEqual((await agent.client.listTools()).tools, []);
      port.set([ready, pyright]);
      await agent.client.listTools(); // the client learns the output schemas it checks answers by
    },
  );

  it('each answer equals what the request helpers answer directly', T, async () => {
    port.set([ready, pyright]);
    await agent.client.listTools();
    const main = FILES['src/main.ts'];
    const shapes = FILES['src/shapes.ts'];
    const use = { file: 'src/main.ts', ...spot(main, 'totalArea', 2, 2) };
    const decl = { file: 'src/shapes.ts', ...spot(shapes, 'Circle') };

    const def = answerOf(await agent.call('lsp_definition', use));
    assert.deepEqual(def, await definition(conn, use));
    assert.equal((def as { locations: unknown[] }).locations.length, 1);

    const refs = answerOf(await agent.call('lsp_references', decl));
    assert.deepEqual(refs, await references(conn, decl));
    assert.equal((refs as { locations: unknown[] }).locations.length, 5);
    const uses = answerOf(
      await agent.call('lsp_references', { ...decl, includeDeclaration: false }),
    );
    assert.deepEqual(uses, await references(conn, { ...decl, includeDeclaration: false }));
    assert.equal((uses as { locations: unknown[] }).locations.length, 4);

    const hovered = answerOf(await agent.call('lsp_hover', use));
    assert.deepEqual(hovered, await hover(conn, use));
    assert.match(hovered.contents, /totalArea\(shapes: Shape\[\]\)/);

    const outline = answerOf(await agent.call('lsp_document_symbols', { file: 'src/shapes.ts' }));
    assert.deepEqual(outline, await documentSymbols(conn, { file: 'src/shapes.ts' }));

    const found = answerOf(await agent.call('lsp_workspace_symbols', { query: 'totalArea' }));
    assert.deepEqual(found, await workspaceSymbols(conn, { query: 'totalArea' }));
    assert.ok(
      (found as { symbols: { file: string }[] }).symbols.some((s) => s.file === 'src/shapes.ts'),
    );

    const declared = { file: 'src/shapes.ts', ...spot(shapes, 'totalArea'), newName: 'sumOfAreas' };
    const renamed = answerOf(await agent.call('lsp_rename', declared));
    assert.deepEqual(renamed, await rename(conn, declared));
    assert.deepEqual(
      (renamed as { changes: { file: string }[] }).changes.map((c) => c.file),
      ['src/main.ts', 'src/shapes.ts'],
    );

    // Diagnostics of the file as it is: the type error, for the version the server has.
    let diag: unknown;
    await until('diagnostics of src/broken.ts', async () => {
      const r = await agent.call('lsp_diagnostics', { file: 'src/broken.ts' });
      if (r.isError === true) return false;
      diag = answerOf(r);
      return true;
    });
    assert.deepEqual(diag, await diagnostics(conn, { file: 'src/broken.ts' }));
    const list = (diag as { diagnostics: { severity: string; line: number; message: string }[] })
      .diagnostics;
    assert.equal(list.length, 1, JSON.stringify(diag));
    assert.equal(list[0].severity, 'error');
    assert.equal(list[0].line, 1);
    assert.match(list[0].message, /not assignable to type 'number'/);
  });

  it('a file no server handles, or whose server is not Ready, says why', T, async () => {
    port.set([ready, pyright]);
    const none = errorOf(await agent.call('lsp_diagnostics', { file: 'README.md' }));
    assert.equal(
      none,
      'no language server handles README.md: the configured extensions are .py, .ts, .tsx',
    );
    const waiting = errorOf(await agent.call('lsp_hover', { file: 'tool.py', line: 1, column: 1 }));
    assert.equal(
      waiting,
      "pyright comes from .lsp.json and waits for approval: run 'mcpctl approve pyright'",
    );
    port.set([]);
    assert.match(
      errorOf(await agent.call('lsp_workspace_symbols', { query: 'x' })),
      /no language server is configured for this workspace/,
    );
    port.set([pyright]);
    assert.match(
      errorOf(await agent.call('lsp_workspace_symbols', { query: 'x' })),
      /no language server is ready: pyright comes from \.lsp\.json/,
    );
  });

  it('workspace symbols ask every Ready server and merge, each symbol once', T, async () => {
    // The same server under two names (two configs on one workspace) and one that cannot
    // answer (never started: it offers nothing).
    const idle = new LspConnection(typescriptServer(dir.path, { name: 'idle' }));
    port.set([
      ready,
      { ...ready, name: 'typescript-2' },
      { name: 'idle', extensionToLanguage: { '.js': 'javascript' }, connection: idle },
    ]);
    await agent.client.listTools();
    const merged = answerOf(await agent.call('lsp_workspace_symbols', { query: 'Circle' }));
    const direct = await workspaceSymbols(conn, { query: 'Circle' });
    assert.deepEqual(merged, {
      symbols: direct.symbols,
      notAnswered: [
        { server: 'idle', message: 'language server "idle" does not offer workspace symbols' },
      ],
    });
    port.set([{ name: 'idle', extensionToLanguage: { '.js': 'javascript' }, connection: idle }]);
    assert.match(
      errorOf(await agent.call('lsp_workspace_symbols', { query: 'Circle' })),
      /"idle" does not offer workspace symbols/,
    );
    await idle.close();
  });

  it(
    'hostile arguments are refused with the argument named, and the server still answers',
    T,
    async () => {
      port.set([ready, pyright]);
      await agent.client.listTools();
      const outside = tempDir('mcpctl-lsp-tools-outside-');
      try {
        writeFileSync(outside.file('x.ts'), 'export const x = 1;\n');
        symlinkSync(outside.file('x.ts'), dir.file('src/link.ts'));
        const at = { line: 1, column: 1 };
        // No extension a server takes: refused before anything is read.
        assert.match(
          errorOf(await agent.call('lsp_definition', { file: '../../etc/passwd', ...at })),
          /no language server handles \.\.\/\.\.\/etc\/passwd/,
        );
        assert.match(
          errorOf(await agent.call('lsp_definition', { file: '../../etc/passwd.ts', ...at })),
          /is outside the workspace/,
        );
        assert.match(
          errorOf(await agent.call('lsp_hover', { file: outside.file('x.ts'), ...at })),
          /is outside the workspace/,
        );
        assert.match(
          errorOf(await agent.call('lsp_document_symbols', { file: 'src/link.ts' })),
          /leads outside the workspace/,
        );
        assert.match(
          errorOf(await agent.call('lsp_hover', { file: 'src/main.ts', line: -1, column: 1 })),
          /^lsp_hover: line must be a whole number from 1 .*got -1$/,
        );
        assert.match(
          errorOf(await agent.call('lsp_hover', { file: 'src/main.ts', line: 'x', column: 1 })),
          /line must be a whole number from 1 .*got "x"/,
        );
        assert.match(
          errorOf(await agent.call('lsp_hover', { file: 'src/main.ts', line: 999, column: 1 })),
          /line 999 is past the end of src\/main\.ts/,
        );
        assert.match(
          errorOf(await agent.call('lsp_hover', { file: 'src/main.ts', column: 1 })),
          /line must be .*got nothing/,
        );
        const huge = errorOf(
          await agent.call('lsp_rename', {
            file: 'src/shapes.ts',
            ...spot(FILES['src/shapes.ts'], 'Circle'),
            newName: 'N'.repeat(5_000_000),
          }),
        );
        assert.match(huge, /newName must be at most 1000 characters/);
        assert.ok(huge.length < 200);
        const controls = errorOf(
          await agent.call('lsp_workspace_symbols', { query: 'Circle\u0000\u001b[2J\r\n' }),
        );
        assert.match(controls, /query must be .* without control characters/);
        assert.doesNotMatch(controls, /[\u0000-\u001f]/);
        // Arguments that are not an object at all: every required one is missing.
        const raw = await agent.client.request(
          { method: 'tools/call', params: { name: 'lsp_hover', arguments: ['x'] } },
          CallToolResultSchema,
        );
        assert.match(errorOf(raw), /file must be/);

        // After all that, the same connection answers as before.
        const use = { file: 'src/main.ts', ...spot(FILES['src/main.ts'], 'totalArea', 2) };
        assert.deepEqual(answerOf(await agent.call('lsp_hover', use)), await hover(conn, use));
      } finally {
        outside.remove();
      }
    },
  );

  it('a server on a folder inside the workspace: paths as the workspace has them', T, async () => {
    // `workspaceFolder: "<sub>"` in a workspace one level up: the agent names files from the
    // workspace root, and answers name them so too.
    const workspace = path.dirname(dir.path);
    const sub = path.basename(dir.path);
    port.set([{ ...ready, workspace }]);
    await agent.client.listTools();
    const use = { file: `${sub}/src/main.ts`, ...spot(FILES['src/main.ts'], 'totalArea', 2, 2) };
    const def = answerOf(await agent.call('lsp_definition', use)) as {
      locations: { file: string }[];
    };
    assert.deepEqual(
      def.locations.map((l) => l.file),
      [`${sub}/src/shapes.ts`],
    );
    const direct = await definition(conn, { ...use, file: 'src/main.ts' });
    assert.deepEqual(
      def.locations.map((l) => ({ ...l, file: l.file.slice(sub.length + 1) })),
      direct.locations,
      'the same answer, its paths one folder deeper',
    );
    port.set([ready, pyright]);
  });

  it('--meta-tools finds and calls them; with "only" they stay out of tools/list', T, async () => {
    port.set([ready, pyright]);
    const use = { file: 'src/main.ts', ...spot(FILES['src/main.ts'], 'totalArea', 2) };
    const expected = await hover(conn, use);
    for (const mode of ['add', 'only'] as const) {
      const meta = await connect(port, mode);
      try {
        const names = (await meta.client.listTools()).tools.map((t) => t.name);
        assert.deepEqual(
          names,
          mode === 'add'
            ? ['mcpctl_find_tools', 'mcpctl_call_tool', ...LSP_TOOL_NAMES]
            : ['mcpctl_find_tools', 'mcpctl_call_tool'],
        );
        const found = answerOf(await meta.call('mcpctl_find_tools', { query: 'hover' })) as {
          tools: { name: string; server: string }[];
          unavailable: { server: string; reason: string }[];
        };
        assert.deepEqual(
          found.tools.map((t) => `${t.name} ${t.server}`),
          ['lsp_hover typescript'],
        );
        assert.deepEqual(found.unavailable, [
          { server: 'languageserver/pyright', reason: 'PendingApproval', ...pick(pyright) },
        ]);
        const called = await meta.call('mcpctl_call_tool', { name: 'lsp_hover', arguments: use });
        assert.deepEqual(answerOf(called), expected);
      } finally {
        await meta.close();
      }
    }
  });
});

const pick = (t: LspTarget) => ({ message: t.unavailable!.message, action: t.unavailable!.action });

describe('answers too long for an agent, through the gateway', T, () => {
  let dir: TempDir;
  const conns: LspConnection[] = [];
  const port = new LanguageServersPort();
  let agent: Agent;

  before(async () => {
    dir = tempDir('mcpctl-lsp-tools-long-');
    // Two servers on one workspace, the second on a folder inside it: their symbols differ.
    mkdirSync(dir.file('b'));
    for (const folder of [dir.path, dir.file('b')]) {
      writeFileSync(path.join(folder, 'symbols.txt'), 'fn\n');
      // A short wait for the work a server reports: past it, answers say they may be partial.
      const conn = new LspConnection(fakeServer(folder, 'normal', { readyWaitMs: 200 }));
      await conn.open();
      conns.push(conn);
    }
    port.set(
      conns.map((connection, i): LspTarget => ({
        name: `fake${i}`,
        extensionToLanguage: { [i === 0 ? '.txt' : '.log']: 'plaintext' },
        connection,
        workspace: dir.path,
      })),
    );
    agent = await connect(port);
    await agent.client.listTools(); // the client learns the output schemas it checks answers by
  });

  after(async () => {
    await agent.close();
    for (const conn of conns) {
      const pid = conn.pid!;
      await conn.close();
      await until('the server group to be gone', () => !groupAlive(pid), { timeoutMs: 10_000 });
    }
    dir.remove();
  });

  it('cuts a list to its first items and says how many there were', T, async () => {
    writeFileSync(dir.file('many.txt'), `${'x'.repeat(100)}\n`.repeat(20));
    const refs = answerOf(
      await agent.call('lsp_references', { file: 'many.txt', line: 1, column: 1 }),
    ) as { locations: unknown[]; truncated?: unknown };
    assert.equal(refs.locations.length, MAX_ANSWER_ITEMS);
    assert.deepEqual(refs.truncated, { total: 2000, shown: MAX_ANSWER_ITEMS });
    assert.match(
      textOf(await agent.call('lsp_references', { file: 'many.txt', line: 1, column: 1 })),
      /"truncated":\{"total":2000,"shown":500\}/,
    );
  });

  it(
    'workspace symbols of every server are merged, then cut, counting what each cut',
    T,
    async () => {
      const merged = answerOf(await agent.call('lsp_workspace_symbols', { query: 'many300' })) as {
        symbols: { file: string }[];
        truncated?: unknown;
      };
      assert.equal(merged.symbols.length, MAX_ANSWER_ITEMS);
      assert.deepEqual(merged.truncated, { total: 600, shown: MAX_ANSWER_ITEMS });
      assert.deepEqual([...new Set(merged.symbols.map((s) => s.file))].sort(), [
        'b/symbols.txt',
        'symbols.txt',
      ]);
      const each = answerOf(await agent.call('lsp_workspace_symbols', { query: 'many4000' })) as {
        symbols: unknown[];
        truncated?: unknown;
      };
      assert.equal(each.symbols.length, MAX_ANSWER_ITEMS);
      assert.deepEqual(each.truncated, { total: 8000, shown: MAX_ANSWER_ITEMS });
      const whole = answerOf(await agent.call('lsp_workspace_symbols', { query: 'many200' })) as {
        symbols: unknown[];
      };
      assert.equal(whole.symbols.length, 400);
      assert.equal('truncated' in whole, false);
    },
  );

  it('an answer given while its server is still at work says so; merged ones too', T, async () => {
    writeFileSync(dir.file('one.txt'), 'x\n');
    const at = { file: 'one.txt', line: 1, column: 1 };
    await conns[0].request('fake/work', { token: 'index', title: 'Indexing' });
    const busy = /^language server "fake-normal" was still at work \("Indexing"\) when it answered/;
    const refs = answerOf(await agent.call('lsp_references', at)) as {
      locations: unknown[];
      partial?: string;
    };
    assert.equal(refs.locations.length, 1);
    assert.match(refs.partial ?? '', busy);
    const symbols = answerOf(await agent.call('lsp_workspace_symbols', { query: 'many1' })) as {
      symbols: { file: string }[];
      partial?: string;
    };
    assert.deepEqual(symbols.symbols.map((s) => s.file).sort(), ['b/symbols.txt', 'symbols.txt']);
    assert.match(symbols.partial ?? '', busy);
    assert.equal(symbols.partial?.split('still at work').length, 2, 'only the busy server');
    await conns[0].request('fake/workDone', { token: 'index' });
    const after = answerOf(await agent.call('lsp_references', at)) as { partial?: string };
    assert.equal(after.partial, undefined);
  });
});
