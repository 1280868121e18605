/**
 * A session's environment (DESIGN §5 "The agent's environment"): what `${VAR}` in its configs
 * expands in, what a bare `command` is looked up on (its PATH), and what its stdio servers
 * start in, their own `env` on top. One value carries all three, so they cannot disagree.
 *
 * - `agent`: the variables of the agent whose `mcpctl serve` opened the session. A server that
 *   starts in them must never serve a session with other variables, so their digest is part of
 *   a stdio server's connectionId (identity.ts); the values themselves never show.
 * - `daemon`: the daemon's own process environment (its default session when started by hand,
 *   sessions the CLI opens, `--no-daemon`). It is the baseline every such session shares, so
 *   it adds nothing to a connectionId.
 *
 * Guarantees: the digest is sha256 hex over the sorted `NAME`, `value` pairs (NUL-separated),
 * so equal variables give equal digests whatever their order; an agent environment is a frozen
 * copy (with a null prototype), so what a server starts in is what the digest describes.
 *
 * An agent environment leaves out the variables that describe one process and its terminal
 * rather than the user's setup (PER_PROCESS below: the shell's `PWD`/`OLDPWD`/`SHLVL`/`_`, a
 * terminal's window or pane id, an editor terminal's IPC handles, the markers an agent sets
 * for the processes it starts, npm's per-script variables). Two agents of one user in one
 * folder differ in exactly these, so with them they would never share a session or a process;
 * without them a shared server sees nothing of any one window. What they leave out never
 * reaches a server or a `${VAR}` (a config that needs such a value names it in its `env`).
 */
import { createHash } from 'node:crypto';
import type { SessionEnv } from './env-expansion.js';

export type SessionEnvironment =
  | {
      readonly kind: 'agent';
      readonly vars: Readonly<Record<string, string>>;
      readonly digest: string;
    }
  | { readonly kind: 'daemon'; readonly vars: SessionEnv };

/** Variables of one process or terminal, never of an agent's environment (see the doc). */
const PER_PROCESS_NAMES: ReadonlySet<string> = new Set([
  // The shell's own bookkeeping.
  '_',
  'PWD',
  'OLDPWD',
  'SHLVL',
  'COLUMNS',
  'LINES',
  // A terminal window, tab or pane.
  'TERM_SESSION_ID',
  'ITERM_SESSION_ID',
  'WINDOWID',
  'TMUX_PANE',
  'STY',
  'WT_SESSION',
  'KITTY_WINDOW_ID',
  'WEZTERM_PANE',
  'ALACRITTY_WINDOW_ID',
  'KONSOLE_DBUS_WINDOW',
  'KONSOLE_DBUS_SESSION',
  'GNOME_TERMINAL_SCREEN',
  'SSH_TTY',
  'GPG_TTY',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  // What an agent marks the processes it starts with.
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SSE_PORT',
  'GEMINI_CLI',
  'QWEN_CODE',
  // npm's variables of one script run (npm start, npx).
  'INIT_CWD',
  'npm_command',
  'npm_execpath',
  'npm_node_execpath',
]);
const PER_PROCESS_PREFIXES: readonly string[] = [
  // An editor's integrated terminal: IPC handles and nonces of one window.
  'VSCODE_',
  'CURSOR_',
  'GEMINI_CLI_IDE_',
  'npm_lifecycle_',
  'npm_package_',
];

/** Whether `name` is a variable of one process or terminal (left out of an agent's). */
export function isPerProcessVariable(name: string): boolean {
  return PER_PROCESS_NAMES.has(name) || PER_PROCESS_PREFIXES.some((p) => name.startsWith(p));
}

/** sha256 hex over the set variables of `vars`, sorted by name. */
export function environmentDigest(vars: SessionEnv): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(vars).sort()) {
    const value = vars[name];
    if (typeof value === 'string') hash.update(`${name}\0${value}\0`);
  }
  return hash.digest('hex');
}

/**
 * The environment an agent sent (`mcpctl serve`'s own): copied without the per-process
 * variables, frozen, digested once.
 */
export function agentEnvironment(vars: SessionEnv): SessionEnvironment {
  const copy: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of Object.entries(vars))
    if (typeof value === 'string' && !isPerProcessVariable(name)) copy[name] = value;
  return { kind: 'agent', vars: Object.freeze(copy), digest: environmentDigest(copy) };
}

/** The daemon's own environment (pass `process.env`): inherited by its servers as it is. */
export function daemonEnvironment(vars: SessionEnv): SessionEnvironment {
  return { kind: 'daemon', vars };
}
