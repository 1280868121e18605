/**
 * How each object kind prints as a table row and as a name (`-o name`).
 *
 * Servers (issue 6): NAME, SCOPE, ADMITTED, READY, TOOLS, AGE, REASON; wide adds CONNECTION
 * and PID. REASON is the one that explains the state: the Admitted reason when refused, else
 * the Ready reason when not Ready, else the UpToDate reason when rolling, else the ToolsPinned
 * reason when its pins hold something (ToolsChanged), else the Ready one.
 *
 * Sessions: NAME, WORKSPACE, CONFIGVALID, TRUSTED, SERVERS; wide adds the flags, ENV, AGENTS,
 * WORKSPACE-FROM and CLIENTS (which agent programs it serves, by their MCP clientInfo).
 *
 * Connections (the pool, like `kubectl get pods`): CONNECTION, SERVER, KIND (McpServer or
 * LanguageServer), PID, SESSIONS, STATE, AGE; wide adds TOOLS and PROMPTS. A draining one says how long it has left.
 */
import { ANNOTATION_SCOPE, LANGUAGE_SERVERS, MCP_SERVERS, findCondition } from '../../api/index.js';
import type {
  ConnectionObject,
  LanguageServer,
  McpEvent,
  McpServer,
  SessionObject,
} from '../objects.js';
import { ageOf, humanDuration } from './age.js';
import { statusColour, type Style } from './style.js';
import type { CellInput } from './table.js';

export interface ObjectPrinter<T> {
  /** For `No <plural> found`. */
  readonly plural: string;
  headers(wide: boolean): string[];
  row(item: T, now: number, wide: boolean, style: Style): CellInput[];
  /** `-o name`: kind/name, kubectl style. */
  name(item: T): string;
  /** Stable identity in a watch (same object, new state). */
  key(item: T): string;
}

export function serverReason(server: McpServer | LanguageServer): string {
  const c = server.status.conditions;
  const admitted = findCondition(c, 'Admitted');
  const ready = findCondition(c, 'Ready');
  const upToDate = findCondition(c, 'UpToDate');
  if (admitted?.status === 'False') return admitted.reason ?? '';
  if (ready && ready.status !== 'True') return ready.reason ?? '';
  if (upToDate?.status === 'False') return upToDate.reason ?? '';
  // Ready, but some of what it offers is held by its pins: the user has something to decide.
  const pinned = findCondition(c, 'ToolsPinned');
  if (pinned?.status === 'False') return pinned.reason ?? '';
  return ready?.reason ?? 'Pending';
}

function idleOr(ready: { status?: string; reason?: string } | undefined): string | undefined {
  return ready?.status === 'True' && ready.reason === 'Idle' ? 'Idle' : ready?.status;
}

function statusCell(style: Style, status: string | undefined): CellInput {
  const text = status ?? 'Unknown';
  return { text, paint: statusColour(style, text) };
}

/** A column of one kind of server: its header and its cell. */
interface Column<T> {
  readonly header: string;
  cell(item: T): string;
}

/**
 * The table both kinds of server print: NAME, SCOPE, ADMITTED, READY, `what`, AGE, REASON;
 * wide adds CONNECTION, PID and `wideMore`.
 */
function serverKindPrinter<T extends McpServer | LanguageServer>(kind: {
  readonly plural: string;
  /** `-o name`'s `TYPE/` */
  readonly type: string;
  readonly what: Column<T>;
  readonly wideMore: readonly Column<T>[];
}): ObjectPrinter<T> {
  return {
    plural: kind.plural,
    headers: (wide) => [
      'NAME',
      'SCOPE',
      'ADMITTED',
      'READY',
      kind.what.header,
      'AGE',
      'REASON',
      ...(wide ? ['CONNECTION', 'PID', ...kind.wideMore.map((c) => c.header)] : []),
    ],
    row(s, now, wide, style) {
      const c = s.status.conditions;
      return [
        s.metadata.name,
        s.metadata.annotations?.[ANNOTATION_SCOPE] ?? '',
        statusCell(style, findCondition(c, 'Admitted')?.status),
        // An idle server serves its catalog with no process: said apart from a running one.
        statusCell(style, idleOr(findCondition(c, 'Ready'))),
        kind.what.cell(s),
        ageOf(s.metadata.creationTimestamp, now),
        serverReason(s),
        ...(wide
          ? [
              s.status.connectionId ?? '<none>',
              s.status.pid === undefined ? '<none>' : String(s.status.pid),
              ...kind.wideMore.map((col) => col.cell(s)),
            ]
          : []),
      ];
    },
    name: (s) => `${kind.type}/${s.metadata.name}`,
    key: (s) => s.metadata.name,
  };
}

export const serverPrinter = serverKindPrinter<McpServer>({
  plural: 'servers',
  type: MCP_SERVERS.objectPrefix,
  what: { header: 'TOOLS', cell: (s) => String(s.status.tools.length) },
  wideMore: [],
});

/**
 * Language servers (issue 24): EXTENSIONS where servers have TOOLS; wide adds FOLDER (the
 * workspace folder it was started on).
 */
export const languageServerPrinter = serverKindPrinter<LanguageServer>({
  plural: 'language servers',
  type: LANGUAGE_SERVERS.objectPrefix,
  what: { header: 'EXTENSIONS', cell: (s) => s.status.extensions.join(',') || '<none>' },
  wideMore: [{ header: 'FOLDER', cell: (s) => s.status.workspaceFolder ?? '<none>' }],
});

export const sessionPrinter: ObjectPrinter<SessionObject> = {
  plural: 'sessions',
  headers: (wide) => [
    'NAME',
    'WORKSPACE',
    'CONFIGVALID',
    'TRUSTED',
    'SERVERS',
    ...(wide
      ? [
          'CEILING',
          'MCPCONFIG',
          'LSPCEILING',
          'LSPCONFIG',
          'ENV',
          'AGENTS',
          'WORKSPACE-FROM',
          'CLIENTS',
        ]
      : []),
  ],
  row(s, _now, wide, style) {
    // The ways its agents reached this workspace, each once (agents of one session may differ).
    const from = [...new Set(s.status.agents.map((a) => a.workspaceFrom))].sort();
    const c = s.status.conditions;
    return [
      s.metadata.name,
      s.spec.workspace,
      statusCell(style, findCondition(c, 'ConfigValid')?.status),
      statusCell(style, findCondition(c, 'Trusted')?.status),
      String(s.status.servers.length),
      ...(wide
        ? [
            s.spec.ceiling === null ? '<none>' : s.spec.ceiling.join(','),
            s.spec.mcpConfig ?? '<none>',
            s.spec.lspCeiling === null ? '<none>' : s.spec.lspCeiling.join(','),
            s.spec.lspConfig ?? '<none>',
            s.status.env,
            String(s.status.agents.length),
            from.length === 0 ? '<none>' : from.join(','),
            clientsCell(s),
          ]
        : []),
    ];
  },
  name: (s) => `session/${s.metadata.name}`,
  key: (s) => s.metadata.name,
};

/**
 * Which agent programs a session serves: each attached agent's clientInfo `name/version` as
 * its initialize said it (`?` before it did), in the order they came. Text from outside: the
 * table's door escapes it (command-env.ts terminalSafeIo), JSON carries it in its escapes.
 */
function clientsCell(s: SessionObject): string {
  if (s.status.agents.length === 0) return '<none>';
  return s.status.agents
    .map((a) =>
      a.clientInfo === undefined
        ? '?'
        : `${a.clientInfo.name || '?'}${a.clientInfo.version ? `/${a.clientInfo.version}` : ''}`,
    )
    .join(',');
}

export const eventPrinter: ObjectPrinter<McpEvent> = {
  plural: 'events',
  headers: (wide) => [
    'LAST SEEN',
    'TYPE',
    'REASON',
    'OBJECT',
    'MESSAGE',
    ...(wide ? ['FIRST SEEN', 'COUNT'] : []),
  ],
  row(e, now, wide, style) {
    return [
      ageOf(e.lastTimestamp, now),
      { text: e.type, paint: e.type === 'Warning' ? style.yellow : (t: string) => t },
      e.reason,
      e.involvedObject,
      e.message,
      ...(wide ? [ageOf(e.firstTimestamp, now), String(e.count)] : []),
    ];
  },
  name: (e) => `event/${e.involvedObject.replace('/', '.')}.${e.reason}`,
  key: (e) => `${e.involvedObject}\u0000${e.reason}\u0000${e.message}\u0000${e.type}`,
};

/** `Draining (25s left)` while it drains, else the state as is. */
export function connectionState(c: ConnectionObject, now: number): string {
  const { state, drainEndsAt } = c.status;
  if (state !== 'Draining' || drainEndsAt === undefined) return state;
  const end = Date.parse(drainEndsAt);
  return Number.isNaN(end) ? state : `${state} (${humanDuration(end - now)} left)`;
}

export const connectionPrinter: ObjectPrinter<ConnectionObject> = {
  plural: 'connections',
  headers: (wide) => [
    'CONNECTION',
    'SERVER',
    'KIND',
    'PID',
    'SESSIONS',
    'STATE',
    'AGE',
    ...(wide ? ['TOOLS', 'PROMPTS'] : []),
  ],
  row(c, now, wide, style) {
    const state = c.status.state;
    return [
      c.metadata.name,
      c.spec.server,
      c.spec.kind,
      c.status.pid === null ? '<none>' : String(c.status.pid),
      c.status.sessions.length === 0 ? '<none>' : c.status.sessions.join(','),
      { text: connectionState(c, now), paint: state === 'Ready' ? style.green : style.yellow },
      ageOf(c.metadata.creationTimestamp, now),
      ...(wide ? [String(c.status.tools), String(c.status.prompts)] : []),
    ];
  },
  name: (c) => `connection/${c.metadata.name}`,
  key: (c) => c.metadata.name,
};
