/**
 * AdmissionTicket: the only thing `pool.acquire()` accepts; LanguageServerTicket: the only
 * thing the language-server pool accepts.
 *
 * The brand symbols are not exported, so no code can write a ticket literal; the one place that
 * mints tickets of either kind is `reconcilers/admission.ts` (a lint rule forbids `as
 * AdmissionTicket` and `as LanguageServerTicket` anywhere else, tests' helpers aside). The
 * approval gate therefore has no second path. The two brands differ, so a ticket of one kind
 * is never accepted by the pool of the other.
 */
import type {
  LanguageServerConfig,
  LanguageServerScope,
  McpServerConfig,
  Scope,
  SessionEnvironment,
} from '../api/index.js';

declare const admitted: unique symbol;
declare const admittedLanguageServer: unique symbol;

export interface AdmissionTicket {
  readonly [admitted]: true;
  /** Server name as configured. */
  readonly name: string;
  /**
   * connectionIdOf(name, config, cwd, env): where a stdio server runs, and in which
   * environment, are part of it.
   */
  readonly connectionId: string;
  /** The normalised config the server was admitted with. */
  readonly config: McpServerConfig;
  /**
   * Where that config came from: endpoints a repository's file names (project, workspace) are
   * not the user's word, so OAuth checks them against the server's metadata (api/oauth.ts).
   */
  readonly scope: Scope;
  /** The session the admission decision was made for. */
  readonly sessionId: string;
  /**
   * The session's workspace (absolute): a stdio server runs in `workingDirectoryOf(config,
   * cwd)`, its `cwd` resolved against this, else this.
   */
  readonly cwd: string;
  /** The session's environment: a stdio server starts in its variables, plus its `env`. */
  readonly env: SessionEnvironment;
}

/** A language server admitted for one session: how to start it, and for whom. */
export interface LanguageServerTicket {
  readonly [admittedLanguageServer]: true;
  /** Server name as configured. */
  readonly name: string;
  /** lspConnectionIdOf(name, config, workspaceFolder, env): the pool's key. */
  readonly connectionId: string;
  /** The session the admission decision was made for. */
  readonly sessionId: string;
  /**
   * The entry it was admitted with: variables expanded, `command` as found on the session's
   * PATH. (`settings`, `extensionToLanguage`: what the server gets at start.)
   */
  readonly config: LanguageServerConfig;
  /** Absolute realpath inside the session's workspace: rootUri, workspace folder and cwd. */
  readonly workspaceFolder: string;
  /** `project` (`.lsp.json`, approved) or `cli` (`--lsp-config`). */
  readonly scope: LanguageServerScope;
  /** The session's environment: the server starts in its variables, plus its `env`. */
  readonly env: SessionEnvironment;
}
