/**
 * Admission: the one place a server is judged fit to run, and the only producer of
 * AdmissionTicket (DESIGN §5 "One admission path").
 *
 * Order of checks (first match wins): untrusted folder → disabled → excluded → not in the
 * effective allowlist → gated: approved for this session → rejected → not approved (pending).
 * A session approval is checked before a stored rejection because it is the newer, explicit
 * decision of the same user for this exact config.
 */
import {
  connectionIdOf,
  expandServerConfig,
  isExcluded,
  isGatedScope,
  isInAllowlist,
  oauthSecretsOf,
  type AdmittedReason,
  type ApprovalState,
  type DesiredServer,
  type Gating,
  type McpServerConfig,
  type SessionEnvironment,
  syntaxOfScope,
} from '../api/index.js';
import type { AdmissionTicket } from '../pool/ticket.js';
import { resolveCommand } from './command-path.js';

/** What admission needs to know about approvals; the session adapts its stores to this. */
export interface ApprovalView {
  /** The persisted, hash-bound state (DESIGN §4 rule 7). */
  state(server: DesiredServer): ApprovalState;
  /** Approved for this session only, for this exact config (rule 10). */
  approvedForSession(server: DesiredServer): boolean;
}

export interface AdmissionContext {
  readonly trusted: boolean;
  readonly gating: Gating;
  readonly approvals: ApprovalView;
  readonly sessionId: string;
  /** The session's workspace: a stdio server runs there, or in its `cwd` resolved against it. */
  readonly workspace: string;
  /**
   * The session's environment: what `${VAR}` references expand in, `command` is looked up on
   * (its PATH), and a stdio server starts in (its `env` on top).
   */
  readonly env: SessionEnvironment;
}

export type AdmittedDecision = {
  readonly admitted: true;
  readonly reason: Extract<AdmittedReason, 'NotGated' | 'Approved' | 'ApprovedForSession'>;
};

export type RefusedReason = Exclude<AdmittedReason, 'NotGated' | 'Approved' | 'ApprovedForSession'>;

export type RefusedDecision = {
  readonly admitted: false;
  readonly reason: RefusedReason;
  readonly message: string;
};

export type AdmissionDecision = AdmittedDecision | RefusedDecision;

/** The decision alone, without a ticket: what `diff` and `why` use. */
export function decideAdmission(server: DesiredServer, ctx: AdmissionContext): AdmissionDecision {
  const { name } = server;
  const refuse = (reason: RefusedReason, message: string): RefusedDecision => ({
    admitted: false,
    reason,
    message,
  });
  if (!ctx.trusted)
    return refuse('UntrustedFolder', `the workspace ${ctx.workspace} is not trusted`);
  if (server.config.disabled === true)
    return refuse('Disabled', `server ${name} has "disabled": true in ${server.source}`);
  if (isExcluded(name, ctx.gating)) return refuse('Excluded', `server ${name} is in mcp.excluded`);
  if (!isInAllowlist(name, ctx.gating))
    return refuse('NotAllowed', `server ${name} is not in the effective allowlist`);
  if (!isGatedScope(server.scope)) return { admitted: true, reason: 'NotGated' };
  if (ctx.approvals.approvedForSession(server))
    return { admitted: true, reason: 'ApprovedForSession' };
  const state = ctx.approvals.state(server);
  if (state === 'approved') return { admitted: true, reason: 'Approved' };
  if (state === 'rejected')
    return refuse('Rejected', `server ${name} from ${server.source} was rejected for this config`);
  return refuse(
    'PendingApproval',
    `server ${name} from ${server.source} needs approval before it may start`,
  );
}

/**
 * What an admitted server would run as in this session: its config with the session's variables
 * expanded and `command` found on the session's PATH, and the connectionId of exactly that
 * (DESIGN §5: the id is over the expanded config and, for an agent's session, a digest of the
 * environment a stdio server starts in, so different tokens or agents never share a process).
 */
export type Runtime =
  | {
      readonly runnable: true;
      readonly config: McpServerConfig;
      readonly connectionId: string;
      /** Values that came from the environment, and env/header values: never to be shown. */
      readonly secrets: readonly string[];
    }
  | {
      readonly runnable: false;
      /** Referenced variables that are unset and have no default. */
      readonly missing: readonly string[];
      readonly message: string;
    };

export function runtimeOf(
  server: DesiredServer,
  ctx: Pick<AdmissionContext, 'env' | 'workspace'>,
): Runtime {
  const expansion = expandServerConfig(server.config, syntaxOfScope(server.scope), ctx.env.vars);
  if (!expansion.ok) {
    const names = expansion.missing.join(', ');
    return {
      runnable: false,
      missing: expansion.missing,
      message: `${names} ${expansion.missing.length > 1 ? 'are' : 'is'} not set in the session's environment (referenced by server ${server.name} in ${server.source})`,
    };
  }
  let config = expansion.config;
  const command =
    config.command === undefined ? undefined : resolveCommand(config.command, ctx.env.vars);
  if (command !== undefined && command !== config.command) config = { ...config, command };
  return {
    runnable: true,
    config,
    connectionId: connectionIdOf(server.name, config, ctx.workspace, ctx.env),
    secrets: [
      ...expansion.substituted,
      ...Object.values(config.env ?? {}),
      ...Object.values(config.headers ?? {}),
      ...oauthSecretsOf(config),
    ],
  };
}

export type Admission =
  | (AdmittedDecision & {
      readonly runnable: true;
      readonly ticket: AdmissionTicket;
      readonly secrets: readonly string[];
    })
  | (AdmittedDecision & {
      readonly runnable: false;
      readonly missing: readonly string[];
      readonly message: string;
    })
  | RefusedDecision;

/**
 * Decides, and mints a ticket only when admitted and runnable: a server whose variables are
 * missing gets no ticket, so nothing can start with a literal `${VAR}` in its config.
 */
export function admit(server: DesiredServer, ctx: AdmissionContext): Admission {
  const decision = decideAdmission(server, ctx);
  if (!decision.admitted) return decision;
  const runtime = runtimeOf(server, ctx);
  if (!runtime.runnable) return { ...decision, ...runtime };
  const ticket = {
    name: server.name,
    connectionId: runtime.connectionId,
    config: runtime.config,
    scope: server.scope,
    sessionId: ctx.sessionId,
    cwd: ctx.workspace,
    env: ctx.env,
  } as AdmissionTicket; // The one sanctioned mint: every check above has passed.
  return { ...decision, runnable: true, ticket, secrets: runtime.secrets };
}
