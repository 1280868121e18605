/**
 * Methods about sessions: open/close (held by the connection), list, reload, diff, events.
 *
 * Guarantees: `session.open` returns the id of a session the calling connection holds until it
 * closes or calls `session.close`; `session.reload` answers once the session settled, with a
 * line per server saying what the reload did; `session.diff` connects nothing. `resolve`,
 * `reload` and `diff` say which files do not parse or validate (`configWarnings`), so every
 * command can say so.
 */
import path from 'node:path';
import { z } from 'zod';
import {
  MCP_SERVERS,
  API_VERSION,
  changedConnectionFields,
  findCondition,
  sessionFlagsOf,
  type McpServerConfig,
} from '../../api/index.js';
import type { AgentOpener, SessionSpec } from '../../controller/daemon.js';
import type { DiffLine, ReloadPreview } from '../../controller/reload-preview.js';
import type { Session } from '../../controller/session.js';
import {
  eventList,
  sessionList,
  type EventList,
  type SessionList,
  type SessionObject,
} from '../objects.js';
import { RpcCodes, RpcError } from '../rpc/protocol.js';
import { method, type MethodTable } from '../rpc/methods.js';
import { INSIDE_MCPCTL_ENV } from '../agent/inert-port.js';
import { folderDifference, folderSessions } from './folder-sessions.js';
import {
  openHeld,
  releaseHold,
  resolveSession,
  selectSession,
  selectorShape,
  type MethodContext,
  type SessionMatch,
} from './context.js';

/** What opening a session takes (`session.open`, and `gateway.open` on top). */
export const openShape = {
  workspace: z.string().min(1),
  ceiling: z.array(z.string()).optional(),
  mcpConfig: z.string().min(1).optional(),
  // `--allowed-lsp-server-names` and `--lsp-config`: the language servers' ceiling and file.
  lspCeiling: z.array(z.string()).optional(),
  lspConfig: z.string().min(1).optional(),
  // The opener's environment (`mcpctl serve` sends the agent's): what ${VAR} expands to.
  env: z.record(z.string()).optional(),
  pid: z.number().int().positive().optional(),
};

export type OpenParams = z.output<z.ZodObject<typeof openShape>>;

/** The session `p` asks for. @throws RpcError (-32602) for a path that is not absolute. */
export function openSpec(p: OpenParams): SessionSpec {
  const relative = (file: string | undefined) => file !== undefined && !path.isAbsolute(file);
  if (!path.isAbsolute(p.workspace) || relative(p.mcpConfig) || relative(p.lspConfig))
    throw new RpcError(
      RpcCodes.InvalidParams,
      'invalid params: workspace, mcpConfig and lspConfig must be absolute paths',
    );
  return {
    // The wire's names for the paths (`mcpConfig`, `lspConfig`) as the flags name them.
    ...sessionFlagsOf({
      workspace: p.workspace,
      ceiling: p.ceiling,
      mcpConfigPath: p.mcpConfig,
      lspCeiling: p.lspCeiling,
      lspConfigPath: p.lspConfig,
    }),
    ...(p.env && !isDaemonEnv(p.env)
      ? { env: { vars: p.env, label: p.pid ? `serve pid ${p.pid}` : 'client' } }
      : {}),
  };
}

/** What `session.resolve` answers (the CLI's withSession reads it before every command). */
export interface SessionResolved {
  readonly sessionId: string;
  readonly workspace: string;
  readonly match: SessionMatch;
  /** The session's files that do not parse or validate, one sentence each (empty: all good). */
  readonly configWarnings: string[];
  /** The ids of every open session of its folder (itself included), oldest first. */
  readonly folderSessions: string[];
  /** What sets the folder's other sessions apart ('' for none; absent from older daemons). */
  readonly folderDifference?: string;
}

export function sessionMethods(ctx: MethodContext): MethodTable {
  const selector = z.object(selectorShape);
  return {
    'session.open': method(
      z.object(openShape),
      '{ sessionId }: opens (or joins) the session of a workspace (and environment); held until this connection closes',
      async (p, call) => {
        const { session } = await openHeld(ctx, call.conn, openSpec(p));
        return { sessionId: session.id };
      },
    ),
    'session.resolve': method(
      selector,
      '{ sessionId, workspace, match, configWarnings, folderSessions, folderDifference }: the session a selector picks, how ("default" when nothing matched), what its files have wrong, every session of its folder and what sets them apart',
      async (p, call): Promise<SessionResolved> => {
        const { session, match } = await resolveSession(ctx, p, call);
        return {
          sessionId: session.id,
          workspace: session.workspace,
          match,
          configWarnings: session.configWarnings(),
          folderSessions: folderSessions(ctx.daemon, session),
          folderDifference: folderDifference(ctx.daemon, session),
        };
      },
    ),
    'session.close': method(
      z.object({ sessionId: z.string().min(1) }),
      'gives back one hold this connection has on a session',
      (p, call) => {
        if (!releaseHold(call.conn, p.sessionId))
          throw new RpcError(RpcCodes.NotFound, `this connection holds no session ${p.sessionId}`);
        return {};
      },
    ),
    'sessions.list': method(z.object({}), 'SessionList of every open session', (): SessionList =>
      sessionList(ctx.daemon.sessions().map((i) => toSessionObject(i.session, i.agents))),
    ),
    'session.reload': method(
      selector,
      '{ changes: DiffLine[], configWarnings }: re-reads every source, reconciles, answers when settled; configWarnings: the files that do not parse or validate (kept at their last good content)',
      async (p, call) => {
        const session = await selectSession(ctx, p, call);
        const before = snapshot(session);
        await session.reload();
        return {
          changes: reloadChanges(before, snapshot(session), session.workspace),
          configWarnings: session.configWarnings(),
        };
      },
    ),
    'session.diff': method(
      selector,
      '{ lines: DiffLine[], configWarnings }: what a reload would do now, and what the files on disk have wrong; connects nothing',
      async (p, call): Promise<ReloadPreview> => {
        const session = await selectSession(ctx, p, call);
        return session.diff();
      },
    ),
    'events.list': method(
      selector,
      'EventList of the session, oldest first',
      async (p, call): Promise<EventList> => {
        const session = await selectSession(ctx, p, call);
        return eventList(session.eventList());
      },
    ),
  };
}

/**
 * The opener's environment is the daemon's own (a daemon started by hand in the agent's
 * shell): then it joins the daemon's session for the workspace instead of running a second
 * copy of every server beside it. (A daemon started by serve has a minimal environment of its
 * own; its default session has that serve's, which an equal one joins by the session key.)
 */
function isDaemonEnv(vars: Readonly<Record<string, string>>): boolean {
  const own = (name: string) => name !== INSIDE_MCPCTL_ENV;
  const mine = Object.keys(process.env).filter(own);
  const theirs = Object.keys(vars).filter(own);
  return mine.length === theirs.length && theirs.every((k) => process.env[k] === vars[k]);
}

export function toSessionObject(
  session: Session,
  agents: readonly AgentOpener[] = [],
): SessionObject {
  return {
    apiVersion: API_VERSION,
    kind: 'Session',
    metadata: { name: session.id },
    spec: {
      workspace: session.workspace,
      ceiling: session.flags.ceiling ? [...session.flags.ceiling] : null,
      mcpConfig: session.flags.mcpConfigPath ?? null,
      lspCeiling: session.flags.lspCeiling ? [...session.flags.lspCeiling] : null,
      lspConfig: session.flags.lspConfigPath ?? null,
    },
    status: {
      conditions: session.conditions,
      servers: Object.keys(session.kind(MCP_SERVERS.kind).servers()).sort(),
      env: session.envLabel,
      agents: agents.map((a) => ({ ...a })),
      sources: session.desired().sources.map((s) => ({
        file: s.file,
        scope: s.scope,
        holds: s.holds,
        exists: s.exists,
        valid: s.errors.length === 0,
      })),
    },
  };
}

interface ServerState {
  readonly config: McpServerConfig;
  readonly connectionId: string | undefined;
  /** Why it is not live: the Admitted reason when refused, else the Ready reason. */
  readonly reason: string;
}

function snapshot(session: Session): Map<string, ServerState> {
  const out = new Map<string, ServerState>();
  const desired = session.kind(MCP_SERVERS.kind).servers();
  for (const s of session.kind(MCP_SERVERS.kind).list({ showSecrets: true })) {
    const admitted = findCondition(s.status.conditions, 'Admitted');
    const ready = findCondition(s.status.conditions, 'Ready');
    out.set(s.metadata.name, {
      config: desired[s.metadata.name]?.config ?? s.spec,
      connectionId: s.status.connectionId,
      reason: (admitted?.status === 'False' ? admitted.reason : ready?.reason) ?? 'Unknown',
    });
  }
  return out;
}

/** What the reload did, per server, in `diff`'s vocabulary. */
export function reloadChanges(
  before: Map<string, ServerState>,
  after: Map<string, ServerState>,
  workspace: string,
): DiffLine[] {
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const lines: DiffLine[] = [];
  for (const name of names) {
    const b = before.get(name);
    const a = after.get(name);
    const wasLive = b?.connectionId !== undefined;
    const isLive = a?.connectionId !== undefined;
    if (!a) lines.push({ action: 'remove', name });
    else if (isLive && !wasLive) lines.push({ action: 'add', name });
    else if (!isLive && wasLive) lines.push({ action: 'remove', name, detail: a.reason });
    else if (!isLive) lines.push({ action: 'blocked', name, detail: a.reason });
    else if (b && a.connectionId !== b.connectionId)
      lines.push({
        action: 'restart',
        name,
        detail: changedConnectionFields(b.config, a.config, workspace).join(', '),
      });
    else lines.push({ action: 'keep', name });
  }
  return lines;
}
