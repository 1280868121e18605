/**
 * Reload preview: what a reload would add, remove, restart, keep or block, computed from the
 * files on disk now against what runs now. Connects nothing (DESIGN §5 "Reload preview").
 */
import { changedConnectionFields, type DesiredServers } from '../api/index.js';
import { decideAdmission, runtimeOf, type AdmissionContext } from '../reconcilers/admission.js';
import type { ServerRecord } from '../reconcilers/server-record.js';

export type DiffAction = 'add' | 'remove' | 'restart' | 'keep' | 'blocked';

export interface DiffLine {
  readonly action: DiffAction;
  readonly name: string;
  /** Changed fields for `restart`; the reason for `blocked`. */
  readonly detail?: string;
}

export interface DiffInput {
  readonly next: { servers: DesiredServers };
  readonly records: ReadonlyMap<string, ServerRecord>;
  /** The session's admission context, with the trust and gating of `next`. */
  readonly admission: AdmissionContext;
}

export function diffReload(input: DiffInput): DiffLine[] {
  const names = new Set([...Object.keys(input.next.servers), ...input.records.keys()]);
  const out: DiffLine[] = [];
  for (const name of [...names].sort()) {
    const server = input.next.servers[name];
    const live = input.records.get(name)?.live;
    if (!server) {
      if (live) out.push({ action: 'remove', name });
      continue;
    }
    const decision = decideAdmission(server, input.admission);
    if (!decision.admitted) {
      out.push({ action: live ? 'remove' : 'blocked', name, detail: decision.reason });
      continue;
    }
    const runtime = runtimeOf(server, input.admission);
    if (!runtime.runnable) {
      out.push({ action: live ? 'remove' : 'blocked', name, detail: 'MissingEnv' });
      continue;
    }
    if (!live) {
      out.push({ action: 'add', name });
      continue;
    }
    if (live.connectionId === runtime.connectionId) {
      out.push({ action: 'keep', name });
      continue;
    }
    const changed = changedConnectionFields(live.config, server.config, input.admission.workspace);
    out.push({ action: 'restart', name, detail: changed.join(', ') });
  }
  return out;
}

const SIGN: Record<DiffAction, string> = {
  add: '+',
  remove: '-',
  restart: '~',
  keep: '=',
  blocked: '!',
};

export function formatDiffLine(line: DiffLine): string {
  const detail = line.detail ? ` (${line.detail})` : '';
  return `${SIGN[line.action]} ${line.action} ${line.name}${detail}`;
}
