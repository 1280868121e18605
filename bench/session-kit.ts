/**
 * What several figures share: a session on a BenchDir with a given pool, and a way to wait for
 * a server to be Ready on a given connectionId without polling (polling would burn the CPU the
 * scale figure measures).
 */
import { ApprovalStore, SessionApprovals } from '../approvals/index.js';
import { createSession, type Session, type SessionOptions } from '../controller/session.js';
import type { Pool } from '../pool/types.js';
import type { BenchDir } from './temp.js';

export async function benchSession(
  dir: BenchDir,
  pool: Pool,
  extra: Partial<SessionOptions> = {},
): Promise<Session> {
  return createSession({
    workspace: dir.workspace,
    home: dir.home,
    systemSettingsPath: dir.systemSettings,
    pool,
    approvals: await ApprovalStore.open({ home: dir.home, env: {} }),
    sessionApprovals: new SessionApprovals(),
    ...extra,
  });
}

/** True when `name` is Ready and served by `connectionId`. */
export function readyOn(session: Session, name: string, connectionId: string): boolean {
  const s = session.kind('McpServer').get(name);
  const ready = s?.status.conditions.find((c) => c.type === 'Ready');
  return s?.status.connectionId === connectionId && ready?.status === 'True';
}

/**
 * Resolves once `name` is Ready on `connectionId`, checked after each reconcile pass (the
 * session's `change` event), so the wait itself costs nothing while nothing happens.
 */
export function whenReadyOn(
  session: Session,
  name: string,
  connectionId: string,
  timeoutMs = 60_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (readyOn(session, name, connectionId)) {
      resolve();
      return;
    }
    const timer = setTimeout(() => {
      off();
      reject(new Error(`${name} not Ready on ${connectionId} after ${timeoutMs} ms`));
    }, timeoutMs);
    const off = session.on('change', (changed) => {
      if (changed !== name || !readyOn(session, name, connectionId)) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}
