/**
 * Test harness for sessions: a temp home and workspace with real files, a real pool (stdio
 * fixture processes) wrapped in a spy, a real approval store, and helpers to wait for state.
 * Not exported from the controller.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LanguageServer, McpServerConfig, McpServer } from '../../api/index.js';
import { ApprovalStore, SessionApprovals } from '../../approvals/index.js';
import { createPool } from '../../pool/index.js';
import type { AdmissionTicket } from '../../pool/ticket.js';
import type { AcquireOptions, Holder, Lease, Pool } from '../../pool/types.js';
import { fixtureConfig } from '../../pool/testing/fixtures.js';
import { createSession, type Session, type SessionOptions } from '../session.js';
import { tempDir } from '../../testing/temp-dir.js';

export { fixtureConfig };

/** Records every acquire and release that reaches the pool. */
export class SpyPool implements Pool {
  readonly acquired: string[] = [];
  readonly released: string[] = [];
  constructor(readonly inner: Pool) {}
  acquire(ticket: AdmissionTicket, holder: Holder, options?: AcquireOptions): Promise<Lease> {
    this.acquired.push(ticket.name);
    return this.inner.acquire(ticket, holder, options);
  }
  release(...args: Parameters<Pool['release']>): void {
    this.released.push(args[0]);
    this.inner.release(...args);
  }
  releaseSession(sessionId: string): void {
    this.inner.releaseSession(sessionId);
  }
  request(...args: Parameters<Pool['request']>): ReturnType<Pool['request']> {
    return this.inner.request(...args);
  }
  attach(...args: Parameters<Pool['attach']>): ReturnType<Pool['attach']> {
    return this.inner.attach(...args);
  }
  stats(): ReturnType<Pool['stats']> {
    return this.inner.stats();
  }
  has(key: string): boolean {
    return this.inner.has(key);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  count(name: string): number {
    return this.acquired.filter((n) => n === name).length;
  }
}

export interface Harness {
  readonly home: string;
  readonly workspace: string;
  readonly pool: SpyPool;
  readonly approvals: ApprovalStore;
  /** Paths of the files a session reads. */
  readonly files: {
    user: string;
    workspace: string;
    project: string;
    system: string;
    trust: string;
  };
  write(file: string, content: unknown): void;
  session(extra?: Partial<SessionOptions>): Promise<Session>;
  close(): Promise<void>;
}

export async function harness(options: { pool?: Pool } = {}): Promise<Harness> {
  const { path: root, remove } = tempDir('mcpctl-session-');
  const home = join(root, 'home');
  const workspace = join(root, 'ws');
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  const files = {
    user: join(home, '.qwen', 'settings.json'),
    workspace: join(workspace, '.qwen', 'settings.json'),
    project: join(workspace, '.mcp.json'),
    system: join(root, 'system', 'settings.json'),
    trust: join(home, '.qwen', 'trustedFolders.json'),
  };
  const pool = new SpyPool(options.pool ?? createPool({ drainDelayMs: 0, graceMs: 300 }));
  const approvals = await ApprovalStore.open({ home, env: {} });
  const sessions: Session[] = [];
  return {
    home,
    workspace,
    pool,
    approvals,
    files,
    write(file, content) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    },
    async session(extra = {}) {
      const s = await createSession({
        workspace,
        home,
        systemSettingsPath: files.system,
        pool,
        approvals,
        sessionApprovals: new SessionApprovals(),
        debounceMs: 80,
        backoffBaseMs: 50,
        backoffCapMs: 400,
        ...extra,
      });
      sessions.push(s);
      return s;
    },
    async close() {
      for (const s of sessions) await s.close();
      await pool.close();
      remove();
    },
  };
}

export function servers(map: Record<string, McpServerConfig>): {
  mcpServers: Record<string, McpServerConfig>;
} {
  return { mcpServers: map };
}

export function condition(
  server: McpServer | LanguageServer | undefined,
  type: string,
): string | undefined {
  const c = server?.status.conditions.find((x) => x.type === type);
  return c ? `${c.status}/${c.reason}` : undefined;
}

export function readyPid(session: Session, name: string): number | undefined {
  const s = session.kind('McpServer').get(name);
  return condition(s, 'Ready') === 'True/Connected' ? s?.status.pid : undefined;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
