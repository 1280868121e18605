/**
 * Admission: the one place a server of either kind (MCP server, language server) is judged fit
 * to run, and the only producer of AdmissionTicket and LanguageServerTicket (DESIGN §5 "One
 * admission path").
 *
 * Order of checks (first match wins), one function for both kinds: untrusted folder → disabled
 * → excluded → not in the effective allowlist → gated: approved for this session → rejected →
 * not approved (pending). A session approval is checked before a stored rejection because it is
 * the newer, explicit decision of the same user for this exact config.
 *
 * An admitted server gets a ticket only when it can run as written: every `${VAR}` set, and for
 * a language server a workspace folder that exists inside the workspace (its realpath too, so a
 * symlink cannot lead out).
 */
import { realpathSync } from 'node:fs';
import {
  KINDS,
  isLanguageServer,
  type AnyDesiredServer,
  MCP_SERVERS,
  connectionIdOf,
  expandLanguageServerConfig,
  expandServerConfig,
  isExcluded,
  isGatedScope,
  isInAllowlist,
  isInsideFolder,
  lspConnectionIdOf,
  oauthSecretsOf,
  workspaceFolderOf,
  type AdmittedReason,
  type ApprovalState,
  type DesiredLanguageServer,
  type DesiredServer,
  type Gating,
  type LanguageServerConfig,
  type McpServerConfig,
  type Scope,
  type SessionEnvironment,
  syntaxOfServer,
} from '../api/index.js';
import type { AdmissionTicket, LanguageServerTicket } from '../pool/ticket.js';
import { resolveCommand } from './command-path.js';

/** What admission reads of a server, whatever its kind. */
export interface AdmissibleServer {
  readonly name: string;
  readonly scope: Scope;
  readonly source: string;
  readonly config: { readonly disabled?: boolean };
  /** `LanguageServer` for a language server; MCP servers carry no kind. */
  readonly kind?: DesiredLanguageServer['kind'];
}

/** What admission needs to know about approvals; the session adapts its stores to this. */
export interface ApprovalView<S extends AdmissibleServer = DesiredServer> {
  /** The persisted, hash-bound state (DESIGN §4 rule 7). */
  state(server: S): ApprovalState;
  /** Approved for this session only, for this exact config (rule 10). */
  approvedForSession(server: S): boolean;
  /**
   * The other work tree of the same git repository the persisted state was decided in, for
   * this exact config (approvals/work-tree.ts); absent or undefined: decided here, or not at all.
   */
  carriedFrom?(server: S): string | undefined;
}

export interface AdmissionContext<S extends AdmissibleServer = DesiredServer> {
  readonly trusted: boolean;
  readonly gating: Gating;
  readonly approvals: ApprovalView<S>;
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
  /** What Admitted's message says (a decision carried from another work tree). */
  readonly message?: string;
};

export type RefusedReason = Exclude<AdmittedReason, 'NotGated' | 'Approved' | 'ApprovedForSession'>;

export type RefusedDecision = {
  readonly admitted: false;
  readonly reason: RefusedReason;
  readonly message: string;
};

export type AdmissionDecision = AdmittedDecision | RefusedDecision;

/** How messages name a server of this kind. */
function nounOf(server: AdmissibleServer): string {
  return KINDS[server.kind ?? MCP_SERVERS.kind].noun;
}

/** The decision alone, without a ticket: what `diff` and `why` use. Both kinds. */
export function decideAdmission<S extends AdmissibleServer>(
  server: S,
  ctx: AdmissionContext<S>,
): AdmissionDecision {
  const name = `${nounOf(server)} ${server.name}`;
  const refuse = (reason: RefusedReason, message: string): RefusedDecision => ({
    admitted: false,
    reason,
    message,
  });
  if (!ctx.trusted)
    return refuse('UntrustedFolder', `the workspace ${ctx.workspace} is not trusted`);
  if (server.config.disabled === true)
    return refuse('Disabled', `${name} has "disabled": true in ${server.source}`);
  if (isExcluded(server.name, ctx.gating)) return refuse('Excluded', `${name} is in mcp.excluded`);
  if (!isInAllowlist(server.name, ctx.gating))
    return refuse('NotAllowed', `${name} is not in the effective allowlist`);
  if (!isGatedScope(server.scope)) return { admitted: true, reason: 'NotGated' };
  if (ctx.approvals.approvedForSession(server))
    return { admitted: true, reason: 'ApprovedForSession' };
  const state = ctx.approvals.state(server);
  const from = state === 'pending' ? undefined : ctx.approvals.carriedFrom?.(server);
  const carried =
    from === undefined
      ? ''
      : ` in ${from}, a work tree of the same git repository, for this exact config`;
  if (state === 'approved')
    return {
      admitted: true,
      reason: 'Approved',
      ...(carried === '' ? {} : { message: `approved${carried}` }),
    };
  if (state === 'rejected')
    return refuse(
      'Rejected',
      `${name} from ${server.source} was rejected${carried || ' for this config'}`,
    );
  return refuse(
    'PendingApproval',
    `${name} from ${server.source} needs approval before it may start`,
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
  | NotRunnable;

/**
 * Admitted, but it cannot run as written: `MissingEnv` (a referenced variable is unset, with no
 * default) or `InvalidConfig` (what the entry names cannot be used: a language server's
 * workspace folder outside the workspace or missing, a transport other than stdio).
 */
export interface NotRunnable {
  readonly runnable: false;
  readonly problem: 'MissingEnv' | 'InvalidConfig';
  /** Referenced variables that are unset and have no default. */
  readonly missing: readonly string[];
  readonly message: string;
}

/** A server's runtime, by its kind. */
export type RuntimeOf<S extends AnyDesiredServer> = S extends DesiredLanguageServer
  ? LanguageServerRuntime
  : Runtime;

/** A server's ticket, by its kind. */
export type TicketOf<S extends AnyDesiredServer> = S extends DesiredLanguageServer
  ? LanguageServerTicket
  : AdmissionTicket;

/**
 * What an admitted server of either kind would run as in this session (Runtime,
 * LanguageServerRuntime): the one entry point; each kind's check below.
 */
export function runtimeOf<S extends AnyDesiredServer>(
  server: S,
  ctx: Pick<AdmissionContext<S>, 'env' | 'workspace'>,
): RuntimeOf<S> {
  // The conditional type cannot follow the narrowing: isLanguageServer decides which it is.
  return (
    isLanguageServer(server) ? languageServerRuntime(server, ctx) : mcpRuntime(server, ctx)
  ) as RuntimeOf<S>;
}

function mcpRuntime(
  server: DesiredServer,
  ctx: Pick<AdmissionContext<never>, 'env' | 'workspace'>,
): Runtime {
  const expansion = expandServerConfig(server.config, syntaxOfServer(server), ctx.env.vars);
  if (!expansion.ok) return missingEnv(expansion.missing, `server ${server.name}`, server.source);
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

function missingEnv(missing: readonly string[], who: string, source: string): NotRunnable {
  const names = missing.join(', ');
  return {
    runnable: false,
    problem: 'MissingEnv',
    missing,
    message: `${names} ${missing.length > 1 ? 'are' : 'is'} not set in the session's environment (referenced by ${who} in ${source})`,
  };
}

/** What an admitted language server would run as in this session (see Runtime). */
export type LanguageServerRuntime =
  | {
      readonly runnable: true;
      readonly config: LanguageServerConfig;
      /** The realpath of its workspace folder, inside the workspace. */
      readonly workspaceFolder: string;
      readonly connectionId: string;
      readonly secrets: readonly string[];
    }
  | NotRunnable;

function languageServerRuntime(
  server: DesiredLanguageServer,
  ctx: Pick<AdmissionContext<never>, 'env' | 'workspace'>,
): LanguageServerRuntime {
  const who = `language server ${server.name}`;
  const invalid = (message: string): NotRunnable => ({
    runnable: false,
    problem: 'InvalidConfig',
    missing: [],
    message: `${who} in ${server.source}: ${message}`,
  });
  const expansion = expandLanguageServerConfig(server.config, ctx.env.vars);
  if (!expansion.ok) return missingEnv(expansion.missing, who, server.source);
  let config = expansion.config;
  if ((config.transport ?? 'stdio') !== 'stdio')
    return invalid(
      `"transport": ${JSON.stringify(config.transport)} is not supported; mcpctl speaks to language servers over stdio only (remove "transport")`,
    );
  if (config.command === undefined || config.command === '')
    return invalid('"command" is required (the program that starts the server)');
  const folder = workspaceFolderOf(config, ctx.workspace);
  if (!folder.ok) return invalid(folder.message);
  let real: string;
  try {
    real = realpathSync(folder.folder);
  } catch {
    return invalid(
      `the workspace folder ${folder.folder} ("workspaceFolder") does not exist; create it or fix the entry`,
    );
  }
  if (!isInsideFolder(real, ctx.workspace))
    return invalid(
      `the workspace folder ${folder.folder} ("workspaceFolder") leads to ${real}, outside the workspace ${ctx.workspace}`,
    );
  const command = resolveCommand(config.command, ctx.env.vars);
  if (command !== config.command) config = { ...config, command };
  return {
    runnable: true,
    config,
    workspaceFolder: real,
    connectionId: lspConnectionIdOf(server.name, config, real, ctx.env),
    secrets: [...expansion.substituted, ...Object.values(config.env ?? {})],
  };
}

export type Admission<T = AdmissionTicket> =
  | (AdmittedDecision & {
      readonly runnable: true;
      readonly ticket: T;
      readonly secrets: readonly string[];
    })
  | (AdmittedDecision & Omit<NotRunnable, 'runnable'> & { readonly runnable: false })
  | RefusedDecision;

/**
 * Decides, and mints a ticket only when admitted and runnable: a server whose variables are
 * missing gets no ticket, so nothing can start with a literal `${VAR}` in its config. One
 * function for both kinds: the same decision, then the kind's runtime and its ticket.
 */
export function admit<S extends AnyDesiredServer>(
  server: S,
  ctx: AdmissionContext<S>,
): Admission<TicketOf<S>> {
  const decision = decideAdmission(server, ctx);
  if (!decision.admitted) return decision;
  const runtime: Runtime | LanguageServerRuntime = runtimeOf(server, ctx);
  if (!runtime.runnable) return { ...decision, ...runtime };
  // The one sanctioned mint of either kind: every check above has passed.
  const ticket =
    'workspaceFolder' in runtime
      ? ({
          name: server.name,
          connectionId: runtime.connectionId,
          sessionId: ctx.sessionId,
          config: runtime.config,
          workspaceFolder: runtime.workspaceFolder,
          scope: server.scope,
          env: ctx.env,
        } as LanguageServerTicket)
      : ({
          name: server.name,
          connectionId: runtime.connectionId,
          config: runtime.config,
          scope: server.scope,
          sessionId: ctx.sessionId,
          cwd: ctx.workspace,
          env: ctx.env,
        } as AdmissionTicket);
  // The conditional type cannot follow the runtime's kind; the ticket is the server's kind's.
  return { ...decision, runnable: true, ticket: ticket as TicketOf<S>, secrets: runtime.secrets };
}
