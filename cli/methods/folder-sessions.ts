/**
 * The sessions of one folder, and why there are several: what the CLI in a folder says when it
 * picks one of them (session-names.ts prints the line).
 *
 * Guarantees:
 * - `folderSessions` lists the open sessions of the folder, oldest first, itself among them.
 * - `folderDifference` names what keeps the others apart from the one shown: the flags that
 *   differ (`--mcp-config`, a ceiling…) and the environment, by variable *names* only (never a
 *   value), compared as the sessions use them (per-process variables left out, api/
 *   session-env.ts); "the daemon's own environment" where one is the daemon's. A name that is
 *   not plain (`[A-Za-z_][A-Za-z0-9_]*`) is shown escaped; at most MAX_NAMES are named.
 */
import { isPerProcessVariable, quoted } from '../../api/index.js';
import type { Daemon } from '../../controller/daemon.js';
import type { Session } from '../../controller/session.js';

const MAX_NAMES = 6;

type Spec = ReturnType<Daemon['sessions']>[number]['spec'];

/** The open sessions of `session`'s folder, oldest first (itself among them). */
function ofFolder(daemon: Daemon, session: Session) {
  return daemon.sessions().filter((i) => i.session.workspace === session.workspace);
}

/** The ids of the open sessions of `session`'s folder, oldest first (itself among them). */
export function folderSessions(daemon: Daemon, session: Session): string[] {
  return ofFolder(daemon, session).map((i) => i.session.id);
}

/** What sets the other sessions of `session`'s folder apart from it; '' when nothing does. */
export function folderDifference(daemon: Daemon, session: Session): string {
  const infos = ofFolder(daemon, session);
  const shown = infos.find((i) => i.session === session);
  if (shown === undefined) return '';
  const flags = new Set<string>();
  const names = new Set<string>();
  let daemonEnv = false;
  for (const other of infos) {
    if (other === shown) continue;
    for (const f of flagsApart(shown.spec, other.spec)) flags.add(f);
    const env = envApart(shown.spec, other.spec);
    if (env === 'daemon') daemonEnv = true;
    else for (const n of env) names.add(n);
  }
  const parts = [...flags];
  if (names.size > 0) parts.push(`the environment (${listed([...names].sort())})`);
  if (daemonEnv) parts.push("whose environment it is (an agent's or the daemon's own)");
  return parts.length === 0 ? '' : `they differ in ${parts.join(', ')}`;
}

function flagsApart(a: Spec, b: Spec): string[] {
  const set = (l: readonly string[] | undefined) =>
    l === undefined ? 'none' : JSON.stringify([...new Set(l)].sort());
  const out: string[] = [];
  if (set(a.ceiling) !== set(b.ceiling)) out.push('--allowed-mcp-server-names');
  if (a.mcpConfigPath !== b.mcpConfigPath) out.push('--mcp-config');
  if (set(a.lspCeiling) !== set(b.lspCeiling)) out.push('--allowed-lsp-server-names');
  if (a.lspConfigPath !== b.lspConfigPath) out.push('--lsp-config');
  return out;
}

/** The variable names set differently, or 'daemon' when exactly one is the daemon's own. */
function envApart(a: Spec, b: Spec): string[] | 'daemon' {
  if (a.env === undefined && b.env === undefined) return [];
  if (a.env === undefined || b.env === undefined) return 'daemon';
  const x = a.env.vars;
  const y = b.env.vars;
  const out: string[] = [];
  for (const name of new Set([...Object.keys(x), ...Object.keys(y)]))
    if (!isPerProcessVariable(name) && x[name] !== y[name]) out.push(name);
  return out;
}

function listed(names: readonly string[]): string {
  const shown = names
    .slice(0, MAX_NAMES)
    .map((n) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(n) ? n : quoted(n)));
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
