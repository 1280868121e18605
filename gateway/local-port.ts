/**
 * SessionPort over an in-process Session (`mcpctl serve --no-daemon`, and the daemon's own
 * implementation of the serve methods).
 *
 * Guarantees: list-changed fires at most once per settled burst, and only when some server's
 * registry entry changed during it or the Ready language servers (or their extensions) differ
 * from the last burst's, and at most once per `LIST_CHANGED_MIN_INTERVAL_MS` (a
 * change inside that window is announced at its end, once, however many servers changed and
 * however often); calls go to the lease that serves the tools now;
 * `pendingApprovals` lists exactly the servers and language servers `why` calls
 * PendingApproval (strictly pending, not blocked for another reason first); a decision is about
 * the server of the kind given and the config of the hash given (a language server's answer
 * never decides about the MCP server of its name), and one whose config changed since is not
 * made (`decided: false`); a Warning (`warn`) is
 * recorded once per session, however many agent connections report it.
 */
import {
  MCP_SERVERS,
  SERVER_KINDS,
  asApprovalHash,
  kindNamed,
  kindOf,
  type AnyDesiredServer,
} from '../api/index.js';
import {
  serverViews,
  type LspAnswer,
  type LspArgs,
  type LspQuestion,
  type LspServerView,
} from '../controller/lsp-questions.js';
import type {
  SessionAttachment,
  SessionAgent,
  SessionRequestOptions,
} from '../controller/session-attachment.js';
import { NothingHeldError, StaleDecisionError, type Session } from '../controller/session.js';
import type { McpMessage } from '../pool/types.js';
import type {
  ApprovalRequest,
  DecideOutcome,
  Decision,
  HeldToolsRequest,
  ServerKind,
  ServerTools,
  SessionPort,
  WhyText,
} from './session-port.js';

/**
 * The question about a gated server of either kind: its kind's disclosure and approval hash
 * (api/kinds.ts), so a language server is asked about as itself, never as an MCP server.
 */
export function approvalRequestOf(server: AnyDesiredServer): ApprovalRequest {
  const kind = kindNamed(kindOf(server));
  return {
    kind: kind.kind,
    name: server.name,
    scope: server.scope,
    source: server.source,
    disclosure: kind.disclose(server.config, server.scope),
    hash: kind.approvalHash(server.config),
  };
}

/** What the `lsp_*` tools' listing depends on: the Ready servers and their extensions. */
function lspToolsKey(servers: readonly LspServerView[]): string {
  const ready = servers
    .filter((t) => t.ready)
    .map((t) => [t.name, Object.keys(t.extensionToLanguage).sort()] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify(ready);
}

/** Agents re-list on every list_changed: a few per second at most, whatever the servers do. */
export const LIST_CHANGED_MIN_INTERVAL_MS = 500;

export class LocalSessionPort implements SessionPort {
  readonly #unsubscribe: (() => void)[] = [];

  constructor(
    readonly session: Session,
    /** Runs on close (e.g. release the daemon's hold, or close a private session and pool). */
    private readonly onClose: () => Promise<void> = () => Promise.resolve(),
  ) {}

  list(): Promise<ServerTools[]> {
    const out: ServerTools[] = [];
    const desired = this.session.kind(MCP_SERVERS.kind).servers();
    for (const [server, entry] of [...this.session.registry.entries()].sort(([a], [b]) =>
      a.localeCompare(b),
    )) {
      out.push({
        server,
        scope: desired[server]?.scope ?? 'user',
        tools: entry.tools,
        prompts: entry.prompts,
        ...(entry.capabilities ? { capabilities: entry.capabilities } : {}),
        ...(entry.instructions ? { instructions: entry.instructions } : {}),
      });
    }
    return Promise.resolve(out);
  }

  request(
    server: string,
    message: McpMessage,
    options: SessionRequestOptions,
  ): Promise<Record<string, unknown>> {
    return this.session.request(server, message, options);
  }

  attach(agent: SessionAgent): SessionAttachment {
    return this.session.attachAgent(agent);
  }

  warn(server: string, reason: 'DuplicateResource', message: string): void {
    const object = `server/${server}`;
    // A fact about the session, found again by every agent connection (each has its own
    // gateway): recorded once, or the count would count connections, not occurrences.
    const known = this.session.events.list(
      (e) => e.reason === reason && e.involvedObject === object && e.message === message,
    );
    if (known.length === 0) this.session.events.record('Warning', reason, object, message);
  }

  languageServers(): Promise<LspServerView[]> {
    return Promise.resolve(this.#lspServers());
  }

  #lspServers(): LspServerView[] {
    return serverViews(this.session.lspTargets());
  }

  ask<Q extends LspQuestion>(
    question: Q,
    args: LspArgs<Q>,
    signal: AbortSignal,
  ): Promise<LspAnswer<Q>> {
    return this.session.ask(question, args, signal);
  }

  unavailable(): Promise<(WhyText & { readonly server: string })[]> {
    const ready = this.session.registry.entries();
    return Promise.resolve(
      Object.keys(this.session.kind(MCP_SERVERS.kind).servers())
        .sort()
        .filter((name) => !ready.has(name))
        .map((name) => {
          const w = this.session.kind(MCP_SERVERS.kind).why(name);
          return { server: name, reason: w.reason, message: w.message, action: w.action };
        }),
    );
  }

  configWarnings(): Promise<string[]> {
    return Promise.resolve(this.session.configWarnings());
  }

  why(server: string): Promise<WhyText> {
    return Promise.resolve(this.session.kind(MCP_SERVERS.kind).why(server));
  }

  async decide(
    server: string,
    decision: Decision,
    hash: string,
    kind: ServerKind,
  ): Promise<DecideOutcome> {
    const pinned = asApprovalHash(hash);
    if (pinned === undefined) throw new Error(`not an approval hash: ${JSON.stringify(hash)}`);
    try {
      if (decision === 'reject') await this.session.kind(kind).reject(server, pinned);
      else
        await this.session
          .kind(kind)
          .approve(server, pinned, { sessionOnly: decision === 'approve-session' });
    } catch (err) {
      if (err instanceof StaleDecisionError) return { decided: false, reason: err.message };
      throw err;
    }
    return { decided: true };
  }

  pendingApprovals(): Promise<ApprovalRequest[]> {
    return Promise.resolve(
      SERVER_KINDS.flatMap((k) => {
        const kind = this.session.kind(k);
        const servers: Readonly<Record<string, AnyDesiredServer>> = kind.servers();
        return Object.keys(servers)
          .sort()
          .filter((name) => kind.why(name).reason === 'PendingApproval')
          .map((name) => approvalRequestOf(servers[name]));
      }),
    );
  }

  settled(timeoutMs: number): Promise<void> {
    // Shared by every agent of the session: a busy spell is waited for once (settle-wait.ts).
    return this.session.settledWithin(timeoutMs);
  }

  onListChanged(listener: () => void): void {
    let dirty = false;
    let offered = lspToolsKey(this.#lspServers());
    let lastSent = -Infinity;
    let timer: NodeJS.Timeout | undefined;
    const send = () => {
      timer = undefined;
      lastSent = Date.now();
      listener();
    };
    this.#unsubscribe.push(
      this.session.on('registry', () => {
        dirty = true;
      }),
      this.session.on('settled', () => {
        // The lsp_* tools are listed while a language server is Ready, with the files each
        // handles: a burst that changed which is announced like a registry change.
        const now = lspToolsKey(this.#lspServers());
        if (now !== offered) {
          offered = now;
          dirty = true;
        }
        if (!dirty) return;
        dirty = false;
        // A send already scheduled announces this change too: the agent lists after it.
        if (timer !== undefined) return;
        const wait = lastSent + LIST_CHANGED_MIN_INTERVAL_MS - Date.now();
        if (wait <= 0) send();
        else timer = setTimeout(send, wait);
      }),
      () => clearTimeout(timer),
    );
  }

  heldTools(): Promise<HeldToolsRequest[]> {
    return Promise.resolve(
      Object.keys(this.session.kind(MCP_SERVERS.kind).servers())
        .sort()
        .map((name) => this.#heldRequest(name))
        .filter((r): r is HeldToolsRequest => r !== undefined),
    );
  }

  onToolsHeld(listener: (request: HeldToolsRequest) => void): void {
    this.#unsubscribe.push(
      this.session.on('toolsHeld', (name) => {
        const request = this.#heldRequest(name);
        if (request) listener(request);
      }),
    );
  }

  async decideTools(
    server: string,
    decision: 'accept' | 'reject',
    digests: readonly string[],
  ): Promise<DecideOutcome> {
    try {
      await this.session.decideTools(server, decision, digests);
    } catch (err) {
      if (err instanceof NothingHeldError) return { decided: false, reason: err.message };
      throw err;
    }
    return { decided: true };
  }

  /** What to ask about `name`: its held definitions not rejected; undefined when none. */
  #heldRequest(name: string): HeldToolsRequest | undefined {
    const held = (this.session.pinReview(name)?.held ?? []).filter(
      (h) => !h.rejected && h.change !== 'unreadable',
    );
    return held.length > 0 ? { name, held } : undefined;
  }

  onPendingApproval(listener: (request: ApprovalRequest) => void): void {
    this.#unsubscribe.push(
      this.session.on('pendingApproval', (server) => listener(approvalRequestOf(server))),
    );
  }

  loginsRequired(): Promise<string[]> {
    return Promise.resolve(
      Object.keys(this.session.kind(MCP_SERVERS.kind).servers())
        .sort()
        .filter((name) => this.session.kind(MCP_SERVERS.kind).why(name).reason === 'Unauthorized'),
    );
  }

  onLoginRequired(listener: (server: string) => void): void {
    this.#unsubscribe.push(this.session.on('loginRequired', listener));
  }

  async close(): Promise<void> {
    for (const off of this.#unsubscribe.splice(0)) off();
    await this.onClose();
  }
}
