/**
 * The system under test of the model-based test: a real Session on real files in a temporary
 * home and workspace, a real pool on in-memory MCP servers, a real approval store, and a
 * clock the test moves by hand.
 *
 * Why a hand-moved clock: the reconciler decides "is the back-off window over?" with the
 * session's `now`. With back-off at one hour of that clock, a crashed server stays down until a
 * `tick` step moves the clock, and no retry can fire in the background between steps, so every
 * acquire happens inside a step whose model the checking pool knows.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpServerConfig } from '../../../api/index.js';
import { ApprovalStore, SessionApprovals } from '../../../approvals/index.js';
import { createPool } from '../../../pool/index.js';
import { inMemoryConnector, type InMemoryServer } from '../../../pool/testing/in-memory.js';
import type { AdmissionTicket } from '../../../pool/ticket.js';
import type { AcquireOptions, Holder, Lease } from '../../../pool/types.js';
import { createSession, type Session } from '../../session.js';
import { SpyPool } from '../harness.js';
import { tempDir } from '../../../testing/temp-dir.js';
import { SERVER_TOOLS, VARIANTS, type Model, type ModelScope, type Name } from './model.js';

/** One hour of the session's clock: longer than any run, so only `tick` ends a back-off. */
export const BACKOFF_MS = 3_600_000;

export interface AcquireRecord {
  readonly name: string;
  readonly connectionId: string;
}

/**
 * A pool that checks every acquire against the model of the step in progress before passing
 * it on. Violations are collected, not thrown: a throw would only look like a failed connect to
 * the reconciler, and the test wants to report it.
 */
export class CheckingPool extends SpyPool {
  readonly acquires: AcquireRecord[] = [];
  readonly violations: string[] = [];
  /** Set by the test to the model every acquire must agree with. */
  check: (ticket: AdmissionTicket, holder: Holder) => string | undefined = () => undefined;

  override acquire(
    ticket: AdmissionTicket,
    holder: Holder,
    options?: AcquireOptions,
  ): Promise<Lease> {
    this.acquires.push({ name: ticket.name, connectionId: ticket.connectionId });
    const problem = this.check(ticket, holder);
    if (problem !== undefined) this.violations.push(problem);
    return super.acquire(ticket, holder, options);
  }
}

export interface World {
  readonly session: Session;
  readonly pool: CheckingPool;
  /** Every in-memory server ever built, in order (the last one of a connectionId is live). */
  readonly servers: readonly InMemoryServer[];
  /** Writes every config file so that it says what `model` says. */
  write(model: Model): void;
  /** Moves the session's clock forward. */
  advance(ms: number): void;
  close(): Promise<void>;
}

function serverMap(model: Model, scope: ModelScope): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  for (const [name, variant] of model.servers[scope]) out[name] = VARIANTS[variant] ?? {};
  return out;
}

function mcpSection(lists: {
  allowed?: readonly Name[];
  excluded?: readonly Name[];
}): Record<string, unknown> {
  return {
    ...(lists.allowed === undefined ? {} : { allowed: lists.allowed }),
    ...(lists.excluded === undefined ? {} : { excluded: lists.excluded }),
  };
}

/** Builds the world for one scenario, the files already saying what `initial` says. */
export async function createWorld(initial: Model, baseDir?: string): Promise<World> {
  const { path: root, remove } = tempDir('mcpctl-model-', baseDir);
  const home = join(root, 'home');
  const workspace = join(root, 'ws');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  mkdirSync(join(workspace, '.qwen'), { recursive: true });
  const files: Record<ModelScope | 'trust', string> = {
    user: join(home, '.qwen', 'settings.json'),
    workspace: join(workspace, '.qwen', 'settings.json'),
    project: join(workspace, '.mcp.json'),
    cli: join(root, 'cli-mcp.json'),
    trust: join(home, '.qwen', 'trustedFolders.json'),
  };
  const written = new Map<string, string>();
  const put = (file: string, content: unknown): void => {
    const text = `${JSON.stringify(content, null, 2)}\n`;
    if (written.get(file) === text) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    written.set(file, text);
  };
  const write = (model: Model): void => {
    put(files.user, {
      mcpServers: serverMap(model, 'user'),
      mcp: mcpSection(model.mcp.user),
      security: { folderTrust: { enabled: model.trustEnabled } },
    });
    put(files.workspace, {
      mcpServers: serverMap(model, 'workspace'),
      mcp: mcpSection(model.mcp.workspace),
    });
    put(files.project, { mcpServers: serverMap(model, 'project') });
    put(files.cli, { mcpServers: serverMap(model, 'cli') });
    put(files.trust, model.trustRule === 'none' ? {} : { [workspace]: model.trustRule });
  };
  write(initial);

  let clock = Date.parse('2030-01-01T00:00:00Z');
  const mem = inMemoryConnector(() => {
    const server = new McpServer({ name: 'model', version: '1.0.0' });
    for (const tool of SERVER_TOOLS) server.registerTool(tool, {}, () => ({ content: [] }));
    return server;
  });
  const pool = new CheckingPool(createPool({ connector: mem.connector, drainDelayMs: 0 }));
  const approvals = await ApprovalStore.open({ home, env: {} });
  let session: Session;
  try {
    session = await createSession({
      workspace,
      home,
      systemSettingsPath: join(root, 'no-system-settings.json'),
      mcpConfigPath: files.cli,
      ...(initial.ceiling === undefined ? {} : { ceiling: initial.ceiling }),
      pool,
      approvals,
      sessionApprovals: new SessionApprovals(),
      // The test drives every read through reload(); the watcher must not add passes of its own.
      debounceMs: 600_000,
      backoffBaseMs: BACKOFF_MS,
      backoffCapMs: BACKOFF_MS,
      now: () => clock,
    });
  } catch (err) {
    await pool.close();
    remove();
    throw err;
  }
  return {
    session,
    pool,
    servers: mem.servers,
    write,
    advance(ms) {
      clock += ms;
    },
    async close() {
      try {
        await session.close();
        await pool.close();
      } finally {
        remove();
      }
    },
  };
}
