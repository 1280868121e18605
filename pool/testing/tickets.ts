/**
 * Test-only ticket minting. NOT exported from `pool/index.ts` and never imported by production
 * code: in production the one place that makes tickets is `reconcilers/admission.ts` (DESIGN §5
 * "One admission path").
 *
 * Guarantee: a minted ticket is exactly what admission would make for that config (the
 * connectionId is computed, not invented), so pool tests exercise the real keying.
 */
import {
  connectionIdOf,
  daemonEnvironment,
  type McpServerConfig,
  type Scope,
  type SessionEnvironment,
} from '../../api/index.js';
import type { AdmissionTicket } from '../ticket.js';

export interface TestTicketOptions {
  /** Default "s1". */
  readonly sessionId?: string;
  /** Default workspace for stdio servers. Default process.cwd(). */
  readonly cwd?: string;
  /** Default: this process's own environment (as a daemon's own session has it). */
  readonly env?: SessionEnvironment;
  /** Where the config came from. Default "user". */
  readonly scope?: Scope;
}

export function testTicket(
  name: string,
  config: McpServerConfig,
  options: TestTicketOptions = {},
): AdmissionTicket {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? daemonEnvironment(process.env);
  const ticket = {
    name,
    connectionId: connectionIdOf(name, config, cwd, env),
    config,
    scope: options.scope ?? 'user',
    sessionId: options.sessionId ?? 's1',
    cwd,
    env,
  };
  // The cast is the point: the brand cannot be written as a literal, and only tests (here) and
  // reconcilers/admission.ts may claim that a config was admitted.
  return ticket as unknown as AdmissionTicket;
}
