/**
 * Reload preview: what a reload would add, remove, restart, keep or block, computed from the
 * files on disk now against what runs now, one kind at a time (each SessionKind's `diff`,
 * session-kind.ts). Connects nothing (DESIGN §5 "Reload preview").
 */
import type { AdmissibleServer, AdmissionDecision } from '../reconcilers/admission.js';

export type DiffAction = 'add' | 'remove' | 'restart' | 'keep' | 'blocked';

export interface DiffLine {
  readonly action: DiffAction;
  readonly name: string;
  /** Changed fields for `restart`; the reason for `blocked`. */
  readonly detail?: string;
}

/** `diff`'s answer: the lines, and what the files on disk have wrong (configWarnings). */
export interface ReloadPreview {
  readonly lines: DiffLine[];
  /** One sentence per file that does not parse or validate; a reload keeps its last good content. */
  readonly configWarnings: string[];
}

/** What a preview needs of one kind of server (MCP servers, language servers). */
export interface DiffKind<S extends AdmissibleServer, C> {
  readonly servers: Readonly<Record<string, S>>;
  /** The names that have a record now (configured earlier, maybe running). */
  readonly recorded: Iterable<string>;
  /** What runs now, by name. */
  live(name: string): { readonly connectionId: string; readonly config: C } | undefined;
  decide(server: S): AdmissionDecision;
  /** The connectionId it would run as, or why it cannot run (`MissingEnv`, `InvalidConfig`). */
  runtime(server: S): { runnable: true; connectionId: string } | { runnable: false; why: string };
  /** The fields whose change makes a restart, between what runs and the new entry. */
  changed(live: C, server: S): string[];
  /** How a line names it: `fs`, `languageserver/ts`. */
  label(name: string): string;
}

/** One kind's lines, sorted by name: what a reload would add, remove, restart, keep or block. */
export function diffKind<S extends AdmissibleServer, C>(kind: DiffKind<S, C>): DiffLine[] {
  const names = new Set([...Object.keys(kind.servers), ...kind.recorded]);
  const out: DiffLine[] = [];
  for (const name of [...names].sort()) {
    const server = kind.servers[name];
    const live = kind.live(name);
    const label = kind.label(name);
    if (!server) {
      if (live) out.push({ action: 'remove', name: label });
      continue;
    }
    const decision = kind.decide(server);
    if (!decision.admitted) {
      out.push({ action: live ? 'remove' : 'blocked', name: label, detail: decision.reason });
      continue;
    }
    const runtime = kind.runtime(server);
    if (!runtime.runnable) {
      out.push({ action: live ? 'remove' : 'blocked', name: label, detail: runtime.why });
      continue;
    }
    if (!live) {
      out.push({ action: 'add', name: label });
      continue;
    }
    if (live.connectionId === runtime.connectionId) {
      out.push({ action: 'keep', name: label });
      continue;
    }
    out.push({
      action: 'restart',
      name: label,
      detail: kind.changed(live.config, server).join(', '),
    });
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
