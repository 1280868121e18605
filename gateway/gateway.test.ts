/**
 * The gateway end to end in one process: an SDK Client ↔ gateway ↔ real Session whose
 * pool connects in-memory MCP servers. Files and the watcher are real.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { lspApprovalHashOf } from '../api/index.js';
import { fakeServer } from '../lsp/testing/servers.js';
import { createPool } from '../pool/index.js';
import { inMemoryConnector } from '../pool/testing/in-memory.js';
import type { Session } from '../controller/session.js';
import { condition, harness, servers, sleep, type Harness } from '../controller/testing/harness.js';
import { until } from '../testing/until.js';
import { createGatewayServer } from './gateway.js';
import { LIST_CHANGED_MIN_INTERVAL_MS, LocalSessionPort } from './local-port.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 30_000 };

function memServer(tools: string[]): McpServer {
  const s = new McpServer({ name: 'mem', version: '1.0.0' });
  for (const t of tools)
    s.registerTool(
      t,
      { description: `tool ${t}`, inputSchema: { text: z.string() } },
      ({ text }) => ({
        content: [{ type: 'text', text: `${t}:${text}` }],
      }),
    );
  return s;
}

/** An agent (an SDK Client) connected to a gateway over a real session. */
interface TestAgent {
  client: Client;
  session: Session;
  listChanged: number;
  close(): Promise<void>;
}

/** How the agent answers a question: a fixed decision, 'cancel', or a function of the message. */
type Answer = string | ((message: string) => ElicitResult | Promise<ElicitResult>);

async function connect(h: Harness, decide?: Answer): Promise<TestAgent> {
  const session = await h.session();
  const port = new LocalSessionPort(session);
  const gateway = createGatewayServer(port, {
    version: '0.0.0-test',
    log: () => undefined,
  });
  const server = gateway.server;
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client(
    { name: 'test-agent', version: '1.0.0' },
    { capabilities: decide ? { elicitation: {} } : {} },
  );
  const state: TestAgent = {
    client,
    session,
    listChanged: 0,
    async close() {
      await client.close();
      await server.close();
      gateway.detach();
      await port.close();
    },
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    state.listChanged += 1;
  });
  if (typeof decide === 'function')
    client.setRequestHandler(ElicitRequestSchema, (request) => decide(request.params.message));
  else if (decide)
    client.setRequestHandler(ElicitRequestSchema, () =>
      decide === 'cancel'
        ? { action: 'cancel' as const }
        : { action: 'accept' as const, content: { decision: decide } },
    );
  await server.connect(b);
  await client.connect(a);
  await session.settled();
  return state;
}

/** A session harness whose servers are in-memory mem servers (args: their tools). */
function memHarness(): Promise<Harness> {
  const mem = inMemoryConnector((ticket) => memServer(ticket.config.args ?? []));
  return harness({ pool: createPool({ connector: mem.connector, drainDelayMs: 0 }) });
}

describe('gateway', T, () => {
  let h: Harness;
  beforeEach(async () => {
    h = await memHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it(
    'lists server__tool, calls through, and follows edits with one list_changed per reload',
    T,
    async () => {
      h.write(h.files.user, servers({ fs: { command: 'mem', args: ['read', 'write'] } }));
      const c = await connect(h);
      try {
        const listed = await c.client.listTools();
        assert.deepEqual(
          listed.tools.map((t) => t.name),
          ['fs__read', 'fs__write'],
        );
        assert.equal(listed.tools[0]?.description, 'tool read');
        assert.ok(listed.tools[0]?.inputSchema.properties?.text);
        assert.equal(
          textOf(await c.client.callTool({ name: 'fs__read', arguments: { text: 'hi' } })),
          'read:hi',
        );

        // Three servers appear in one save: one notification.
        c.listChanged = 0;
        h.write(
          h.files.user,
          servers({
            fs: { command: 'mem', args: ['read', 'write'] },
            a: { command: 'mem', args: ['x'] },
            b: { command: 'mem', args: ['y'] },
            c: { command: 'mem', args: ['z'] },
          }),
        );
        await until('new tools', async () => (await c.client.listTools()).tools.length === 5);
        // It may wait out the agent's settle window after the first listing's notification.
        await until('list_changed', () => c.listChanged > 0);
        await sleep(LIST_CHANGED_MIN_INTERVAL_MS + 200);
        assert.equal(c.listChanged, 1);

        // Removing a server: its tools go, and calling one says why.
        h.write(h.files.user, servers({ a: { command: 'mem', args: ['x'] } }));
        await until(
          'fs gone',
          async () => !(await c.client.listTools()).tools.some((t) => t.name === 'fs__read'),
        );
        const r = (await c.client.callTool({
          name: 'fs__read',
          arguments: { text: 'x' },
        })) as CallToolResult;
        assert.equal(r.isError, true);
        assert.match(textOf(r), /fs was removed/);
      } finally {
        await c.close();
      }
    },
  );

  it('calling a tool of a pending server returns the why message, never a crash', T, async () => {
    h.write(h.files.project, { mcpServers: { p: { command: 'mem', args: ['t'] } } });
    const c = await connect(h);
    try {
      assert.deepEqual((await c.client.listTools()).tools, []);
      const r = (await c.client.callTool({ name: 'p__t', arguments: {} })) as CallToolResult;
      assert.equal(r.isError, true);
      assert.match(textOf(r), /run 'mcpctl approve p'/);
    } finally {
      await c.close();
    }
  });

  for (const [answer, expectTools] of [
    ['approve', true],
    ['approve-session', true],
    ['reject', false],
    ['cancel', false],
  ] as const) {
    it(
      `elicitation answered "${answer}" ${expectTools ? 'brings the tools' : 'leaves them out'}`,
      T,
      async () => {
        const c = await connect(h, answer);
        try {
          h.write(h.files.project, { mcpServers: { p: { command: 'mem', args: ['t'] } } });
          if (expectTools) {
            await until('p tools', async () =>
              (await c.client.listTools()).tools.some((t) => t.name === 'p__t'),
            );
          } else {
            await sleep(600);
            assert.deepEqual((await c.client.listTools()).tools, []);
          }
          const state = h.approvals.getState(h.workspace, 'p', { command: 'mem', args: ['t'] });
          const expected = {
            approve: 'approved',
            'approve-session': 'pending',
            reject: 'rejected',
            cancel: 'pending',
          }[answer];
          assert.equal(state, expected);
        } finally {
          await c.close();
        }
      },
    );
  }
});

describe('gateway: a config swapped while the user is asked', T, () => {
  let h: Harness;
  beforeEach(async () => {
    h = await memHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  for (const decision of ['approve', 'approve-session', 'reject'] as const) {
    it(
      `"${decision}" of the config shown decides nothing; the new config is asked about`,
      T,
      async () => {
        const questions: string[] = [];
        let answerFirst: (result: ElicitResult) => void = () => undefined;
        const first = new Promise<ElicitResult>((resolve) => (answerFirst = resolve));
        const c = await connect(h, (message) => {
          questions.push(message);
          return questions.length === 1 ? first : { action: 'cancel' };
        });
        const shown = { command: 'mem', args: ['shown'] };
        const swapped = { command: 'mem', args: ['swapped'] };
        try {
          h.write(h.files.project, { mcpServers: { p: shown } });
          await until('the question about the shown config', () => questions.length === 1);
          assert.match(questions[0] ?? '', /args: +\["shown"\]/);
          h.write(h.files.project, { mcpServers: { p: swapped } });
          await until(
            'the session to see the swapped config',
            () => c.session.desired().kinds.McpServer.servers.p?.config.args?.[0] === 'swapped',
          );
          answerFirst({ action: 'accept', content: { decision } });
          await until('a question about the swapped config', () => questions.length === 2);
          assert.match(questions[1] ?? '', /args: +\["swapped"\]/);
          await c.session.settled();
          assert.equal(
            condition(c.session.kind('McpServer').get('p'), 'Admitted'),
            'False/PendingApproval',
          );
          assert.deepEqual((await c.client.listTools()).tools, []);
          assert.equal(h.approvals.getState(h.workspace, 'p', shown), 'pending');
          assert.equal(h.approvals.getState(h.workspace, 'p', swapped), 'pending');
        } finally {
          answerFirst({ action: 'cancel' });
          await c.close();
        }
      },
    );
  }
});

describe('gateway: servers pending before the client came', T, () => {
  let h: Harness;
  beforeEach(async () => {
    h = await memHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('are asked about once the client has initialized', T, async () => {
    // The session announces a config once, before any client is there to hear it.
    h.write(h.files.project, { mcpServers: { p: { command: 'mem', args: ['t'] } } });
    const c = await connect(h, 'approve');
    try {
      await until('p tools', async () =>
        (await c.client.listTools()).tools.some((t) => t.name === 'p__t'),
      );
      assert.equal(
        h.approvals.getState(h.workspace, 'p', { command: 'mem', args: ['t'] }),
        'approved',
      );
    } finally {
      await c.close();
    }
  });
});

describe('gateway: a language server is asked about like an MCP server', T, () => {
  let h: Harness;
  /** The fake language server's entry as a project `.lsp.json` writes it. */
  const entry = (() => {
    const o = fakeServer('/unused', 'normal');
    return {
      command: o.command,
      args: [...(o.args ?? [])],
      extensionToLanguage: { '.txt': 'plaintext' },
      shutdownTimeout: 1_000,
    };
  })();
  const lspKey = { record: 'languageserver/p', hash: lspApprovalHashOf(entry) };
  const mcp = { command: 'mem', args: ['t'] };
  const writeBoth = () => {
    h.write(h.files.project, { mcpServers: { p: mcp } });
    h.write(path.join(h.workspace, '.lsp.json'), { p: entry });
  };
  const lspTools = async (c: TestAgent) =>
    (await c.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('lsp_'));

  beforeEach(async () => {
    h = await memHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it(
    'approving the language server brings the lsp tools; the MCP server of its name stays pending',
    T,
    async () => {
      const questions: string[] = [];
      // Approves whatever names the language server; the MCP server's question is cancelled.
      const c = await connect(h, (message) => {
        questions.push(message);
        return /the language server "languageserver\/p"/.test(message)
          ? { action: 'accept', content: { decision: 'approve' } }
          : { action: 'cancel' };
      });
      try {
        writeBoth();
        await until('the lsp tools', async () => (await lspTools(c)).length > 0);
        const lspQuestion = questions.find((q) => q.includes('languageserver/p')) ?? '';
        assert.match(lspQuestion, /The project config ".*\.lsp\.json" asks to start the language/);
        assert.match(lspQuestion, /command: +.*node/);
        assert.match(lspQuestion, new RegExp(`config hash: ${lspKey.hash.slice(0, 12)}`));
        await until('the MCP server asked about too', () =>
          questions.some((q) => /the MCP server "p"/.test(q)),
        );
        assert.equal(h.approvals.stateOf(h.workspace, lspKey), 'approved');
        assert.equal(
          condition(c.session.kind('LanguageServer').get('p'), 'Admitted'),
          'True/Approved',
        );
        await c.session.settled();
        assert.equal(h.approvals.getState(h.workspace, 'p', mcp), 'pending');
        assert.equal(
          condition(c.session.kind('McpServer').get('p'), 'Admitted'),
          'False/PendingApproval',
        );
        assert.ok(!(await c.client.listTools()).tools.some((t) => t.name === 'p__t'));
      } finally {
        await c.close();
      }
    },
  );

  it('approving the MCP server leaves the language server of its name pending', T, async () => {
    const c = await connect(h, (message) =>
      /the MCP server "p"/.test(message)
        ? { action: 'accept', content: { decision: 'approve' } }
        : { action: 'cancel' },
    );
    try {
      writeBoth();
      await until('p tools', async () =>
        (await c.client.listTools()).tools.some((t) => t.name === 'p__t'),
      );
      await c.session.settled();
      assert.equal(h.approvals.stateOf(h.workspace, lspKey), 'pending');
      assert.equal(c.session.kind('LanguageServer').why('p').reason, 'PendingApproval');
      assert.deepEqual(await lspTools(c), []);
    } finally {
      await c.close();
    }
  });

  for (const [how, answer] of [
    ['declined', { action: 'decline' }],
    ['rejected', { action: 'accept', content: { decision: 'reject' } }],
  ] as const) {
    it(`${how}: the language server is rejected and starts nothing`, T, async () => {
      const asked: string[] = [];
      const c = await connect(h, (message) => {
        asked.push(message);
        return answer;
      });
      try {
        h.write(path.join(h.workspace, '.lsp.json'), { p: entry });
        await until('rejected', () => h.approvals.stateOf(h.workspace, lspKey) === 'rejected');
        await until('the session sees it', () => {
          return c.session.kind('LanguageServer').why('p').reason === 'Rejected';
        });
        assert.equal(asked.length, 1);
        assert.equal(c.session.kind('LanguageServer').get('p')?.status.pid, undefined);
        assert.deepEqual(await lspTools(c), []);
      } finally {
        await c.close();
      }
    });
  }

  it('a language server pending before the client came is asked about', T, async () => {
    h.write(path.join(h.workspace, '.lsp.json'), { p: entry });
    const c = await connect(h, 'approve-session');
    try {
      await until('the lsp tools', async () => (await lspTools(c)).length > 0);
      assert.equal(
        condition(c.session.kind('LanguageServer').get('p'), 'Admitted'),
        'True/ApprovedForSession',
      );
      // For this session only: nothing written to the store.
      assert.equal(h.approvals.stateOf(h.workspace, lspKey), 'pending');
    } finally {
      await c.close();
    }
  });
});
