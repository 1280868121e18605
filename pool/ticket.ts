/**
 * AdmissionTicket: the only thing `pool.acquire()` accepts.
 *
 * The brand symbol is not exported, so no code can write a ticket literal; the one place that
 * mints tickets is `reconcilers/admission.ts` (a lint rule forbids `as AdmissionTicket`
 * anywhere else, tests' helpers aside). The approval gate therefore has no second path.
 */
import type { McpServerConfig, Scope, SessionEnvironment } from '../api/index.js';

declare const admitted: unique symbol;

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
