/**
 * A session's language servers (issue #24) as a kind of the session (session-kind.ts): the
 * second kind, reconciled by the same ServerReconciler as its MCP servers, with a work queue
 * and workers of its own (the queue is the serialiser per kind), admitted by the same
 * admission function and pooled by the daemon's language-server pool.
 *
 * Guarantees:
 * - Nothing but a reconcile pass acquires a process, and only with a LanguageServerTicket from
 *   admission: a project (`.lsp.json`) server never starts before it is approved, in any path.
 * - An unchanged connectionId keeps the very same process: a `settings` edit is sent as
 *   `workspace/didChangeConfiguration`, an `extensionToLanguage` edit changes routing only.
 *   Any other edit replaces the process, old first (Recreate: two servers on one folder's index
 *   may corrupt it).
 * - A crash restarts with the session's back-off while `restartOnCrash` (default true) and at
 *   most `maxRestarts` (default 5) consecutive failures; past that Ready=False
 *   CrashLoopBackOff says it gave up, and an edit of the entry or a reload retries.
 * - The set of Ready language servers is what `targets()` routes to; every change of it is told
 *   (`onReadyChange`), so the gateway's tool list follows it.
 * - Approvals are the language server's own (approvals/kinds.ts): an MCP server's decision
 *   never admits one of the same name; approvals changed elsewhere judge every project
 *   language server again.
 */
import {
  LANGUAGE_SERVERS,
  jsonEqual,
  workspaceFolderOf,
  type DesiredLanguageServer,
  type LanguageServer,
  type LanguageServerConfig,
} from '../api/index.js';
import type { LanguageServerSubject } from '../approvals/index.js';
import type { DesiredState } from '../informers/types.js';
import type { LanguageServerTicket } from '../pool/ticket.js';
import { admit } from '../reconcilers/admission.js';
import { toLanguageServer, type ServerObjectOptions } from '../reconcilers/server-object.js';
import type { ServerRecord } from '../reconcilers/server-record.js';
import type { ServerKindAdapter } from '../reconcilers/server-kind.js';
import type { DesiredView } from '../reconcilers/server-reconciler.js';
import { LSP_WHY, type WhyAnswer } from '../reconcilers/why.js';
import { LSP_DECISIONS } from './approval-decisions.js';
import type { LanguageServerLease, LspPool } from '../pool/lsp-pool.js';
import type { LspTarget } from './lsp-target.js';
import type { KindParts, SessionKind } from './session-kind.js';
import type { SessionAdmission } from './session-admission.js';

export const DEFAULT_MAX_RESTARTS = 5;

/** A Ready language server as the session routes to it. */
interface ReadyServer {
  readonly key: string;
  readonly lease: LanguageServerLease;
  readonly extensionToLanguage: Readonly<Record<string, string>>;
}

/** The session's kind of language servers. */
export type LanguageServerKind = SessionKind<
  DesiredLanguageServer,
  LanguageServerTicket,
  LanguageServerLease,
  LanguageServerSubject,
  LanguageServer
>;

export interface LanguageServerPartsDeps {
  readonly sessionId: string;
  readonly workspace: string;
  readonly pool: LspPool;
  readonly admission: SessionAdmission;
  /** The set of Ready language servers (or one's connection) changed. */
  onReadyChange(name: string): void;
}

export class LanguageServerParts implements KindParts<
  DesiredLanguageServer,
  LanguageServerTicket,
  LanguageServerLease,
  LanguageServerSubject,
  LanguageServer
> {
  readonly adapter: ServerKindAdapter<
    DesiredLanguageServer,
    LanguageServerTicket,
    LanguageServerLease
  >;
  readonly decisions = LSP_DECISIONS;
  readonly why = LSP_WHY;
  readonly holds = 'languageServers';
  readonly #deps: LanguageServerPartsDeps;
  readonly #ready = new Map<string, ReadyServer>();

  constructor(deps: LanguageServerPartsDeps) {
    this.#deps = deps;
    this.adapter = this.#adapter();
  }

  view(d: DesiredState): DesiredView<DesiredLanguageServer> {
    return d.kinds[LANGUAGE_SERVERS.kind];
  }

  admissionContext(view: DesiredView<DesiredLanguageServer>) {
    return this.#deps.admission.languageServerContext(view);
  }

  /** The `--allowed-lsp-server-names` ceiling is the LSP gating's allowlist. */
  whyLimits(d: DesiredState) {
    return { ceiling: d.kinds[LANGUAGE_SERVERS.kind].gating.allowed, settingsAllowed: undefined };
  }

  object(
    server: DesiredLanguageServer,
    record: ServerRecord<LanguageServerConfig, LanguageServerLease> | undefined,
    options: ServerObjectOptions,
  ): LanguageServer {
    const live = record?.live?.lease.connection.workspaceFolder;
    const folder = workspaceFolderOf(server.config, this.#deps.workspace);
    return toLanguageServer(
      server,
      record,
      live ?? (folder.ok ? folder.folder : undefined),
      options,
    );
  }

  /** Approvals changed elsewhere: every project language server is judged again. */
  approvalsChanged(kind: LanguageServerKind): void {
    for (const server of Object.values(kind.servers()))
      if (server.scope === 'project') kind.enqueue(server.name);
  }

  releaseSession(): void {
    this.#deps.pool.releaseSession(this.#deps.sessionId);
  }

  /**
   * Every configured language server of `servers`, with its connection when Ready, else why
   * not (`why`): what the gateway's `lsp_*` tools route by extension with (lsp-target.ts).
   */
  targets(
    servers: Readonly<Record<string, DesiredLanguageServer>>,
    why: (name: string) => WhyAnswer,
  ): LspTarget[] {
    return Object.keys(servers)
      .sort()
      .map((name) => {
        const ready = this.#ready.get(name);
        const extensionToLanguage = servers[name].config.extensionToLanguage ?? {};
        const workspace = this.#deps.workspace;
        if (ready)
          return { name, extensionToLanguage, workspace, connection: ready.lease.connection };
        const answer = why(name);
        return {
          name,
          extensionToLanguage,
          workspace,
          connection: undefined,
          unavailable: { reason: answer.reason, message: answer.message, action: answer.action },
        };
      });
  }

  /** The language server kind of the reconciler (server-kind.ts). */
  #adapter(): ServerKindAdapter<DesiredLanguageServer, LanguageServerTicket, LanguageServerLease> {
    const ready = this.#ready;
    const tell = (name: string): void => this.#deps.onReadyChange(name);
    return {
      descriptor: LANGUAGE_SERVERS,
      admit,
      pool: this.#deps.pool,
      publish(name, lease, config) {
        const before = ready.get(name);
        const extensionToLanguage = config.extensionToLanguage ?? {};
        ready.set(name, { key: lease.key, lease, extensionToLanguage });
        if (
          before?.key !== lease.key ||
          before.lease !== lease ||
          !jsonEqual(before.extensionToLanguage, extensionToLanguage)
        )
          tell(name);
      },
      unpublish(name) {
        if (ready.delete(name)) tell(name);
      },
      update(lease, before: LanguageServerConfig, after: LanguageServerConfig) {
        if (!jsonEqual(before.settings ?? null, after.settings ?? null))
          lease.connection.setSettings(after.settings);
        if (!jsonEqual(before.extensionToLanguage ?? {}, after.extensionToLanguage ?? {}))
          lease.connection.documents.setExtensionToLanguage(after.extensionToLanguage ?? {});
      },
      readyMessage: (name) => {
        const extensions = Object.keys(ready.get(name)?.extensionToLanguage ?? {}).sort();
        return extensions.length > 0 ? `serves ${extensions.join(', ')}` : 'serves no extension';
      },
      connectedNote: (lease) => lease.connection.stats().server ?? 'language server',
      // Two processes of one server on one folder may corrupt each other's index: old first.
      updateStrategy: () => 'Recreate',
      restartPolicy: (server) => ({
        restartOnCrash: server.config.restartOnCrash ?? true,
        maxRestarts: server.config.maxRestarts ?? DEFAULT_MAX_RESTARTS,
        retryHint: `edit its entry in ${server.source}, or run 'mcpctl reload', to try again`,
      }),
    };
  }
}
