/**
 * AdmissionTicket: the only thing `pool.acquire()` accepts.
 *
 * The brand symbol is not exported, so no code can write a ticket literal; the one place that
 * mints tickets is `reconcilers/admission.ts` (a lint rule forbids `as AdmissionTicket`
 * anywhere else, tests' helpers aside). The approval gate therefore has no second path.
 */
import type { McpServerConfig } from '../api/index.js';

declare const admitted: unique symbol;

export interface AdmissionTicket {
  readonly [admitted]: true;
  /** Server name as configured. */
  readonly name: string;
  /** connectionIdOf(name, config). */
  readonly connectionId: string;
  /** The normalised config the server was admitted with. */
  readonly config: McpServerConfig;
  /** The session the admission decision was made for. */
  readonly sessionId: string;
  /** Default working directory for stdio servers (the session's workspace). */
  readonly cwd: string;
}
