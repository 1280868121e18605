/**
 * The words of `mcpctl setup AGENT`: what an agent module reads, and the plan it returns.
 *
 * Guarantees (of every `AgentSetup`):
 * - `plan` is a pure function of the files' texts and the context: it reads and writes
 *   nothing, so it is tested without a disk, and a dry run and a real run plan the same.
 * - A plan with `refusals` changes nothing at all: the planner writes no file of it.
 * - A moved server's entry is in the `.mcp.json` shape of mcpctl's server file, its meaning
 *   kept (variables converted only where the syntaxes differ, said in `notes`).
 */
import type { Secret } from './entries.js';

/** One file an agent module asked for, as found on disk. */
export type AgentFile =
  | { readonly kind: 'absent'; readonly path: string }
  | { readonly kind: 'text'; readonly path: string; readonly text: string; readonly mode: number }
  /** Not a regular file, a link, too large, unreadable: never read, never written. */
  | { readonly kind: 'refused'; readonly path: string; readonly problem: string };

/** What every agent module is given besides its files. */
export interface SetupContext {
  /** The user's home (absolute). */
  readonly home: string;
  /** The workspace's real path. */
  readonly workspace: string;
  /** The entry that reaches mcpctl: `mcpctl serve`, or the daemon's HTTP endpoint. */
  readonly reach: Reach;
  /** The real path of a folder, or undefined when it does not exist (read before planning). */
  readonly realpath: (folder: string) => string | undefined;
  /**
   * The names mcpctl's server file records as excluded for Qwen Code only (an earlier `setup
   * qwen`'s), filled by the planner from that file; absent: none.
   */
  readonly qwenOnlyExcluded?: ReadonlySet<string>;
}

/** How the agent reaches mcpctl. */
export type Reach =
  | { readonly kind: 'serve'; readonly command: string; readonly args: readonly string[] }
  | { readonly kind: 'http'; readonly url: string; readonly token: string };

/** A server taken out of the agent's config into mcpctl's server file. */
export interface MovedServer {
  readonly name: string;
  /** Where it was, in words: `~/.claude.json mcpServers."fs"`. */
  readonly from: string;
  /**
   * The user's servers (top level) or a workspace's (`projects[realpath]`); or no server but
   * the record that the name setup put in Qwen's user `mcp.excluded` is Qwen Code's only
   * (`qwenOnlyExcluded`, api/server-file.ts), its entry `{ from: FILE }`.
   */
  readonly to: 'user' | 'workspace' | 'qwenOnlyExcluded';
  /** For `workspace`: the real path of the folder whose servers it is. */
  readonly workspace?: string;
  /** The entry as mcpctl's server file writes it. */
  readonly entry: Readonly<Record<string, unknown>>;
}

/** One agent file's new text. */
export interface FileChange {
  readonly path: string;
  /** The new text, whole. */
  readonly text: string;
  /** Mode for a file that does not exist yet (an existing file keeps its own). */
  readonly newMode?: number;
}

export interface AgentPlan {
  readonly changes: readonly FileChange[];
  readonly moves: readonly MovedServer[];
  /** What the user should know: conversions, servers left with the agent and why. */
  readonly notes: readonly string[];
  /** Why nothing may be written: each names the file, the place and the fix. */
  readonly refusals: readonly string[];
  /** Values that must never be printed (env and header values of what was read, the token). */
  readonly secrets: readonly Secret[];
}

export type AgentId = 'claude' | 'gemini' | 'qwen' | 'vscode' | 'cursor';

/** One agent: which files it reads, and what setup makes of them. */
export interface AgentSetup {
  readonly id: AgentId;
  /** "Claude Code". */
  readonly title: string;
  /** The files `plan` reads (absolute paths); each is read once, before planning. */
  files(ctx: SetupContext): readonly string[];
  plan(files: ReadonlyMap<string, AgentFile>, ctx: SetupContext): AgentPlan;
}

/** The name of the one entry setup writes into an agent's config. */
export const ENTRY_NAME = 'mcpctl';
