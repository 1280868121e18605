/**
 * The daemon's table of open sessions, keyed by what makes two sessions the same: the
 * workspace (realpath), the ceilings (`--allowed-mcp-server-names`,
 * `--allowed-lsp-server-names`), the `--mcp-config` and `--lsp-config` files, the environment.
 *
 * Guarantees:
 * - `open(spec)` for a key already open returns the same session and counts one more opener;
 *   concurrent opens of a new key create one session (single-flight).
 * - A session closes when its last opener releases it (release is idempotent); a pinned
 *   session (the daemon's default) never closes that way. An open arriving while its key is
 *   closing waits for the close and gets a fresh session.
 * - A session whose creation failed is forgotten, and every opener waiting for it gets the
 *   error; nothing is counted for them.
 * - After `closeAll()` starts, `open` rejects: a stopping daemon takes no new sessions.
 * - Listeners hear `opened` once a session is ready and `closed` once it has closed.
 * - An opener that says which agent it is (`options.agent`) is listed in `list()`'s `agents`
 *   exactly while its handle is held (from the open to its release), with the MCP clientInfo
 *   its agent's initialize sent once the handle is told it (`identify`), each field cut to
 *   CLIENT_INFO_MAX characters (a client's name is text from outside: printers escape it).
 * - The environment is part of the key; the flags come as the opener (or `Daemon.open`, for
 *   the folder's configuration: folder-flags.ts) gives them.
 */
import type { SessionFlags } from '../api/index.js';
import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { agentEnvironment } from '../api/index.js';

/** What the table needs of a session; controller/session.ts's Session has it. */
export interface TableSession {
  readonly id: string;
  readonly workspace: string;
  close(): Promise<void>;
}

/**
 * The environment a session's configs expand in, and whose it is. Absent: the daemon's own.
 * Two openers with different environments get different sessions (a `${TOKEN}` must never
 * expand to another agent's value), so the values are part of the session's key.
 */
export interface SessionEnvSpec {
  readonly vars: Readonly<Record<string, string>>;
  /** Shown instead of the values: "serve pid 4242". */
  readonly label: string;
}

/**
 * How an agent reached its session's workspace, for `get sessions` (the daemon's log says it
 * too): `serve` the agent's serve (its `--workspace` or working directory), `url` the HTTP
 * URL's `?workspace=`, `roots` the agent's first MCP root, `daemon` the daemon's workspace (an
 * HTTP agent that named none).
 */
export type WorkspaceFrom = 'serve' | 'url' | 'roots' | 'daemon';

/**
 * An opener of a session that is an agent connection (not a CLI command, not the daemon): how
 * it connects, where its workspace came from, which one it is. (The session-attachment
 * `SessionAgent` is the same connection as the session serves it.)
 */
export interface AgentOpener {
  readonly transport: 'serve' | 'http';
  readonly workspaceFrom: WorkspaceFrom;
  /** "serve pid 4242", "http 1a2b3c4d" (never a secret). */
  readonly name: string;
  /** Which agent program it is, as its MCP initialize said (absent until it did). */
  readonly clientInfo?: ClientInfo;
}

/** The MCP `clientInfo` of an agent's initialize, as listed (cut to CLIENT_INFO_MAX). */
export interface ClientInfo {
  readonly name: string;
  readonly version: string;
}

/** The longest client name or version kept, in code points: a client may send anything. */
export const CLIENT_INFO_MAX = 100;

/** What an opener asks for. Paths may be relative to the opener's own cwd: resolve them first. */
export interface SessionSpec extends SessionFlags {
  readonly env?: SessionEnvSpec;
}

/** A spec after normalisation: real paths, ceiling as given (display) and its key form. */
export type NormalizedSpec = { readonly workspace: string } & {
  readonly [K in Exclude<keyof SessionSpec, 'workspace'>]: SessionSpec[K] | undefined;
};

export interface SessionInfo<S extends TableSession> {
  readonly session: S;
  readonly spec: NormalizedSpec;
  readonly createdAt: Date;
  /** How many openers hold it now (the daemon's own hold on its default session included). */
  readonly openers: number;
  readonly pinned: boolean;
  /** The agents holding it now (openers that said which agent they are), oldest first. */
  readonly agents: readonly AgentOpener[];
}

/** Held by an opener; give it back with `release()` (idempotent). */
export interface SessionHandle<S extends TableSession> {
  readonly session: S;
  release(): void;
  /** Its agent's clientInfo, once its initialize said it (nothing for an opener not an agent). */
  identify(clientInfo: { readonly name?: unknown; readonly version?: unknown }): void;
}

export type SessionTableEvent = { type: 'opened' | 'closed'; id: string };

/** The workspace of a session to open does not exist or is not a directory. */
export class WorkspaceNotFoundError extends Error {
  override name = 'WorkspaceNotFoundError';
}

export class DaemonStoppingError extends Error {
  override name = 'DaemonStoppingError';
  constructor() {
    super('the daemon is shutting down and opens no new sessions');
  }
}

interface Entry<S extends TableSession> {
  readonly key: string;
  readonly id: string;
  readonly spec: NormalizedSpec;
  readonly pinned: boolean;
  readonly ready: Promise<S>;
  session: S | undefined;
  createdAt: Date;
  openers: number;
  readonly agents: Set<{ opener: AgentOpener }>;
  closing: Promise<void> | undefined;
}

export interface SessionTableOptions<S extends TableSession> {
  /** Builds and starts a session; `id` is the name it must carry. */
  create(spec: NormalizedSpec, id: string): Promise<S>;
  /** Called with close failures (the session is forgotten anyway). */
  onCloseError?(id: string, err: unknown): void;
}

export class SessionTable<S extends TableSession> {
  readonly #opts: SessionTableOptions<S>;
  readonly #entries = new Map<string, Entry<S>>();
  readonly #listeners = new Set<(event: SessionTableEvent) => void>();
  #stopping = false;

  constructor(opts: SessionTableOptions<S>) {
    this.#opts = opts;
  }

  /**
   * Opens (or joins) the session for `spec`.
   * @throws WorkspaceNotFoundError, DaemonStoppingError, or whatever creating the session threw.
   */
  async open(
    spec: SessionSpec,
    options: { pinned?: boolean; id?: string; agent?: AgentOpener } = {},
  ): Promise<SessionHandle<S>> {
    for (;;) {
      if (this.#stopping) throw new DaemonStoppingError();
      const normalized = normalizeSpec(spec);
      const key = keyOf(normalized);
      const existing = this.#entries.get(key);
      if (existing?.closing) {
        await existing.closing;
        continue;
      }
      const entry = existing ?? this.#create(key, normalized, options);
      entry.openers += 1;
      let session: S;
      try {
        session = await entry.ready;
      } catch (err) {
        entry.openers -= 1;
        throw err;
      }
      return this.#handle(entry, session, options.agent);
    }
  }

  /** The session with this id, if open and ready. */
  byId(id: string): S | undefined {
    for (const e of this.#entries.values()) if (e.id === id && !e.closing) return e.session;
    return undefined;
  }

  /**
   * The open session of a workspace (compared by realpath). When several share it (an agent's
   * environment, its own flags), one an agent holds now wins (the CLI in a folder shows what
   * the agent there sees), then the pinned one, then the oldest.
   */
  findByWorkspace(workspace: string): S | undefined {
    const real = realpathOr(workspace);
    const matches = [...this.#entries.values()]
      .filter((e) => e.session !== undefined && !e.closing && e.spec.workspace === real)
      .sort(
        (a, b) =>
          Number(b.agents.size > 0) - Number(a.agents.size > 0) ||
          Number(b.pinned) - Number(a.pinned) ||
          a.createdAt.getTime() - b.createdAt.getTime(),
      );
    return matches[0]?.session;
  }

  /** Ready, not closing sessions, oldest first. */
  list(): SessionInfo<S>[] {
    return [...this.#entries.values()]
      .filter((e): e is Entry<S> & { session: S } => e.session !== undefined && !e.closing)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map((e) => ({
        session: e.session,
        spec: e.spec,
        createdAt: e.createdAt,
        openers: e.openers,
        pinned: e.pinned,
        agents: [...e.agents].map((a) => a.opener),
      }));
  }

  on(listener: (event: SessionTableEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Refuses new opens, then closes every session (pinned too) and resolves when all closed. */
  async closeAll(): Promise<void> {
    this.#stopping = true;
    const all = [...this.#entries.values()];
    await Promise.all(
      all.map(async (e) => {
        if (e.closing) return e.closing;
        try {
          await e.ready;
        } catch {
          return; // Never opened; #create forgot it already.
        }
        return this.#close(e);
      }),
    );
  }

  #create(key: string, spec: NormalizedSpec, options: { pinned?: boolean; id?: string }): Entry<S> {
    const id = options.id ?? sessionIdFor(spec.workspace);
    const entry: Entry<S> = {
      key,
      id,
      spec,
      pinned: options.pinned ?? false,
      session: undefined,
      createdAt: new Date(),
      openers: 0,
      agents: new Set(),
      closing: undefined,
      ready: this.#opts.create(spec, id).then(
        (session) => {
          entry.session = session;
          entry.createdAt = new Date();
          this.#emit({ type: 'opened', id });
          return session;
        },
        (err: unknown) => {
          if (this.#entries.get(key) === entry) this.#entries.delete(key);
          throw err;
        },
      ),
    };
    // Openers that await `ready` handle its rejection; this keeps an unobserved one quiet.
    entry.ready.catch(() => undefined);
    this.#entries.set(key, entry);
    return entry;
  }

  #handle(entry: Entry<S>, session: S, agent: AgentOpener | undefined): SessionHandle<S> {
    let released = false;
    // Its own object per handle: two agents alike are two entries.
    const mine = agent ? { opener: { ...agent } } : undefined;
    if (mine) entry.agents.add(mine);
    return {
      session,
      release: () => {
        if (released) return;
        released = true;
        if (mine) entry.agents.delete(mine);
        entry.openers -= 1;
        if (entry.openers === 0 && !entry.pinned && !entry.closing && !this.#stopping)
          void this.#close(entry);
      },
      identify: (info) => {
        if (mine === undefined || released) return;
        mine.opener = { ...mine.opener, clientInfo: clientInfoOf(info) };
      },
    };
  }

  #close(entry: Entry<S>): Promise<void> {
    entry.closing ??= (async () => {
      try {
        await entry.session?.close();
      } catch (err) {
        this.#opts.onCloseError?.(entry.id, err);
      } finally {
        if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
        this.#emit({ type: 'closed', id: entry.id });
      }
    })();
    return entry.closing;
  }

  #emit(event: SessionTableEvent): void {
    for (const l of [...this.#listeners]) {
      try {
        l(event);
      } catch {
        // A listener's bug must not break opening or closing sessions.
      }
    }
  }
}

/**
 * Resolves paths to their real form; a missing workspace, or one that is not a directory (a
 * session of a file would watch `<file>/.mcp.json` forever), is an error the opener must see.
 */
export function normalizeSpec(spec: SessionSpec): NormalizedSpec {
  const abs = path.resolve(spec.workspace);
  if (!existsSync(abs)) throw new WorkspaceNotFoundError(`workspace ${abs} does not exist`);
  if (!statSync(abs).isDirectory())
    throw new WorkspaceNotFoundError(
      `workspace ${abs} is not a directory; pass an existing one to --workspace`,
    );
  return {
    workspace: realpathOr(abs),
    ceiling: spec.ceiling === undefined ? undefined : [...spec.ceiling],
    mcpConfigPath:
      spec.mcpConfigPath === undefined ? undefined : realpathOr(path.resolve(spec.mcpConfigPath)),
    lspCeiling: spec.lspCeiling === undefined ? undefined : [...spec.lspCeiling],
    lspConfigPath:
      spec.lspConfigPath === undefined ? undefined : realpathOr(path.resolve(spec.lspConfigPath)),
    env: spec.env,
  };
}

/** A ceiling is a set: order and repeats do not make a different session. */
function keyOf(spec: NormalizedSpec): string {
  const asSet = (names: readonly string[] | undefined) =>
    names === undefined ? null : [...new Set(names)].sort();
  return JSON.stringify([
    spec.workspace,
    asSet(spec.ceiling),
    spec.mcpConfigPath ?? null,
    envDigest(spec.env),
    asSet(spec.lspCeiling),
    spec.lspConfigPath ?? null,
  ]);
}

/**
 * A digest of the variables (never the values themselves in the key); null: the daemon's. The
 * session's own digest (agentEnvironment): per-process variables make no other session.
 */
function envDigest(env: SessionEnvSpec | undefined): string | null {
  if (env === undefined) return null;
  const agent = agentEnvironment(env.vars);
  return agent.kind === 'agent' ? agent.digest : null;
}

/** What a client sent, as text of bounded length (a missing or odd field is empty). */
export function clientInfoOf(info: {
  readonly name?: unknown;
  readonly version?: unknown;
}): ClientInfo {
  const text = (v: unknown) =>
    typeof v === 'string' ? Array.from(v).slice(0, CLIENT_INFO_MAX).join('') : '';
  return { name: text(info.name), version: text(info.version) };
}

/** A readable, unique name: the workspace's folder name plus a short random suffix. */
function sessionIdFor(workspace: string): string {
  const base =
    path
      .basename(workspace)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'session';
  return `${base}-${randomBytes(3).toString('hex')}`;
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
