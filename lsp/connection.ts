/**
 * One connection to one language server process: mcpctl is its one client, for every agent
 * session of its workspace folder.
 *
 * (Over 450 lines by a little: its lifecycle — open, loss, close — is one state machine over
 * one private state and stays in one class; what is not is beside it: connection-options.ts,
 * bounded-request.ts, server-handlers.ts, connection-errors.ts, diagnostics-requests.ts,
 * polite-shutdown.ts.)
 *
 * It has the shape pool/pool.ts drives (`PooledConnection`: `pid`, `open`, `cancel`, `close`,
 * `lease`, `stats`), without importing pool/ (DESIGN §3: lsp/ sees api/ and proc/ only), so the
 * pool's lifecycle — keys, refcounts, single-flight, drain — serves language servers unchanged
 * (pool/lsp-pool.ts); a loss is told through `onLost`, which the pool's host turns into
 * `lost()`.
 *
 * Guarantees:
 * - `open()`: spawn (own process group, server-process.ts; its processes told to
 *   `hooks.processes`, the orphan record), `initialize` with the workspace
 *   folder and the client capabilities of capabilities.ts, `initialized`, then the `settings`
 *   as `workspace/didChangeConfiguration` — all within `startupTimeoutMs`. It fails with an
 *   LspError naming the server, the phase and the cause (spawn error, exit code or signal,
 *   timeout, a refused initialize) plus its last stderr lines; the process group is ended
 *   before it rejects. `cancel()` during open ends it the same way. Called once.
 * - The server's requests to us are answered (server-handlers.ts, server-requests.ts); its
 *   stdout is read within bounds (message-reader.ts): garbage, malformed or oversized messages
 *   never hang or crash the client.
 * - `request()` is bounded (`requestTimeoutMs` unless given) and cancellable by its asker
 *   (bounded-request.ts): past the bound, or on the asker's abort, the server is sent
 *   `$/cancelRequest`. Error answers reject with a `response` LspError carrying the server's
 *   code and message (connection-errors.ts). Its options, hooks and defaults:
 *   connection-options.ts.
 * - Loss: when the process exits, or its stdout ends, without our `close()`, after `open()`
 *   resolved: pending requests reject, the process group is ended, and then `onLost(reason)` is
 *   called once (reason: the exit code or signal, with the last stderr lines).
 * - `close()`: `shutdown` then `exit` within `shutdownTimeoutMs`, then the process group is
 *   ended (SIGTERM, grace, SIGKILL); it resolves when the group is gone. Idempotent, never
 *   rejects, never calls `onLost`.
 * - `setSettings()` sends `workspace/didChangeConfiguration` and answers later
 *   `workspace/configuration` requests from the new settings: no restart.
 * - `whenReady()` asks a question once the work the server reports (work-done progress: loading
 *   a project, indexing) is done, bounded by `readyWaitMs`; an answer it could not wait for
 *   says so in `partial` (server-progress.ts). A server that reports no work is asked at once.
 * - An answer to a request about an open document proves the server took in that document's
 *   version: it is that version's diagnostics barrier (diagnostics.ts, rule 4).
 */
import {
  createProtocolConnection,
  DidChangeConfigurationNotification,
  InitializedNotification,
  InitializeRequest,
  StreamMessageWriter,
  type InitializeResult,
  type ProtocolConnection,
  type ServerCapabilities,
} from 'vscode-languageserver-protocol/node';
import { MAX_MESSAGE_BYTES, quoteName } from '../api/index.js';
import { boundedRequest, type AboutDocument, type RequestHost } from './bounded-request.js';
import { initializeParams } from './capabilities.js';
import {
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_READY_WAIT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
  NOTES_KEPT,
  type LspConnectionHooks,
  type LspConnectionStats,
  type LspConnectionState,
  type LspServerOptions,
  type ReadyAnswer,
  type RequestOptions,
} from './connection-options.js';
import {
  currentDiagnostics,
  DEFAULT_SETTLE_MS,
  DiagnosticsStore,
  type DiagnosticsAnswer,
} from './diagnostics.js';
import { requestError, startError } from './connection-errors.js';
import { barrierOf, pullOf } from './diagnostics-requests.js';
import { DocumentSync } from './documents.js';
import { LspError, messageOf, withStderr } from './errors.js';
import { BoundedMessageReader } from './message-reader.js';
import { encodingOf, type PositionEncoding } from './positions.js';
import { RecentFiles } from './recent-files.js';
import { shutdownPolitely } from './polite-shutdown.js';
import { handleServer } from './server-handlers.js';
import { ServerProgress } from './server-progress.js';
import { ServerRequests } from './server-requests.js';
import { pathOf } from './workspace-files.js';
import { waitFor, type LinesSince } from '../proc/index.js';
import { describeExit, spawnServer, type ExitInfo, type ServerProcess } from './server-process.js';

export * from './connection-options.js';

/** After its stdout closed, how long to wait for the exit that says why. */
const EXIT_WAIT_MS = 500;

/** What a holder of a pooled language server gets (`PooledConnection.lease`). */
export interface LspLease {
  readonly connection: LspConnection;
  readonly startedAt: Date;
}

export class LspConnection {
  readonly name: string;
  readonly workspaceFolder: string;
  readonly documents: DocumentSync;
  readonly #options: LspServerOptions;
  readonly #hooks: LspConnectionHooks;
  /** Publishes of open documents are never dropped: they are what agents wait on. */
  readonly #store = new DiagnosticsStore({
    keep: (file) => this.documents.get(file) !== undefined,
  });
  /** The files this server's answers quoted lately (answer-texts.ts). */
  readonly recentFiles = new RecentFiles();
  readonly #serverRequests: ServerRequests;
  readonly #progress = new ServerProgress();
  readonly #abort = new AbortController();
  #settings: unknown;
  #state: LspConnectionState = 'new';
  #process: ServerProcess | undefined;
  #spawning: Promise<unknown> | undefined;
  #rpc: ProtocolConnection | undefined;
  #result: InitializeResult | undefined;
  #encoding: PositionEncoding = 'utf-16';
  #closing: Promise<void> | undefined;
  #losing: Promise<void> | undefined;
  readonly #notes: string[] = [];
  /** What every request of this connection is lent (bounded-request.ts): made once. */
  readonly #requestHost: RequestHost = {
    who: () => this.#who(),
    answered: (about) => this.#answered(about),
    errorOf: (method, err) => requestError(this.#who(), this.#state, method, err),
  };

  constructor(options: LspServerOptions, hooks: LspConnectionHooks = {}) {
    this.name = options.name;
    this.workspaceFolder = options.workspaceFolder;
    this.#options = options;
    this.#hooks = hooks;
    this.#settings = options.settings;
    this.#serverRequests = new ServerRequests({
      workspaceFolder: options.workspaceFolder,
      settings: () => this.#settings,
      onNote: (note) => this.#note(note),
    });
    this.documents = new DocumentSync(
      {
        notify: (method, params) => this.notify(method, params),
        opened: (doc, reopened) => this.#store.opened(doc.path, doc.version, reopened),
      },
      options.extensionToLanguage,
      options.documents,
    );
  }

  get pid(): number | undefined {
    return this.#process?.pid;
  }

  get state(): LspConnectionState {
    return this.#state;
  }

  /** What the server said it can do (after open). */
  get capabilities(): ServerCapabilities {
    return this.#result?.capabilities ?? {};
  }

  /** The position encoding agreed at initialize. */
  get encoding(): PositionEncoding {
    return this.#encoding;
  }

  /** The server's last log and show messages, and notes about its output. */
  notes(): string[] {
    return [...this.#notes];
  }

  stderrTail(): string[] {
    return this.#process?.stderrTail() ?? [];
  }

  stderrSince(seq: number): LinesSince {
    return this.#process?.stderrSince(seq) ?? { lines: [], skipped: 0, next: seq };
  }

  async open(): Promise<void> {
    if (this.#state !== 'new') throw new LspError('server', `${this.#who()}: opened twice`);
    this.#state = 'starting';
    const o = this.#options;
    const timeoutMs = o.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
    let phase = 'start';
    // One promise that rejects when starting must stop: timeout, cancel, or the process exits.
    let stop!: (err: Error) => void;
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    stopped.catch(() => undefined);
    const timer = setTimeout(
      () =>
        stop(
          new LspError(
            'timeout',
            `${this.#who()}: did not ${phase === 'start' ? 'start' : `answer ${phase}`} within ${timeoutMs} ms (startupTimeout)`,
          ),
        ),
      timeoutMs,
    );
    const onAbort = (): void => stop(this.#abort.signal.reason as Error);
    this.#abort.signal.addEventListener('abort', onAbort);
    try {
      if (this.#abort.signal.aborted) onAbort();
      const spawning = (this.#hooks.spawn ?? spawnServer)({
        name: o.name,
        command: o.command,
        cwd: o.workspaceFolder,
        ...(o.args ? { args: o.args } : {}),
        ...(o.env ? { env: o.env } : {}),
        ...(o.baseEnv ? { baseEnv: o.baseEnv } : {}),
        ...(this.#hooks.processes ? { processes: this.#hooks.processes } : {}),
      });
      this.#spawning = spawning.then((p) => {
        this.#process = p;
        p.onExit((exit) => {
          if (this.#state === 'starting')
            stop(new LspError('server', `${this.#who()}: ${describeExit(exit)} while starting`));
          else this.#exited(exit);
        });
        // One that starts after a cancel is ended by #end() (the failure path below, or close()).
      });
      this.#spawning.catch(() => undefined);
      await Promise.race([this.#spawning, stopped]);
      const rpc = this.#connect(this.#process!);
      phase = 'initialize';
      this.#result = await Promise.race([
        rpc.sendRequest(
          InitializeRequest.type,
          initializeParams({
            workspaceFolder: o.workspaceFolder,
            initializationOptions: o.initializationOptions,
          }),
        ),
        stopped,
      ]);
      this.#encoding = encodingOf(this.#result?.capabilities?.positionEncoding);
      phase = 'initialized';
      await Promise.race([rpc.sendNotification(InitializedNotification.type, {}), stopped]);
      if (this.#settings !== undefined) {
        await Promise.race([
          rpc.sendNotification(DidChangeConfigurationNotification.type, {
            settings: this.#settings,
          }),
          stopped,
        ]);
      }
      // A cancel whose rejection lost the race to the last step still wins.
      if (this.#abort.signal.aborted) throw this.#abort.signal.reason;
      this.#state = 'ready';
    } catch (err) {
      const error = startError(this.#who(), err, phase, this.stderrTail());
      this.#state = 'closing';
      await this.#end();
      this.#state = 'closed';
      throw error;
    } finally {
      clearTimeout(timer);
      this.#abort.signal.removeEventListener('abort', onAbort);
    }
  }

  /** Nobody wants it while it opens: open() ends the process and rejects. */
  cancel(reason: Error): void {
    if (!this.#abort.signal.aborted) this.#abort.abort(reason);
  }

  /** Sends a request; bounded (see the guarantees). */
  request<R>(method: string, params: object | null, options: RequestOptions = {}): Promise<R> {
    const rpc = this.#state === 'ready' ? this.#rpc : undefined;
    if (!rpc) return Promise.reject(this.#notRunning(method));
    const timeoutMs =
      options.timeoutMs ?? this.#options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return boundedRequest<R>(
      this.#requestHost,
      rpc,
      method,
      params,
      this.#documentOf(params),
      timeoutMs,
      options.signal,
    );
  }

  /**
   * `send` (a question about the workspace) once the work the server reports is done, waiting
   * at most `readyWaitMs`; past that the answer says it may be partial (server-progress.ts).
   */
  async whenReady<R>(
    send: () => Promise<R>,
    options: Pick<RequestOptions, 'signal'> = {},
  ): Promise<ReadyAnswer<R>> {
    const answer = await this.#progress.ask(send, {
      waitMs: this.#options.readyWaitMs ?? DEFAULT_READY_WAIT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (answer.busy === undefined) return { result: answer.result };
    const work = answer.busy.map((title) => quoteName(title)).join(', ');
    return {
      result: answer.result,
      partial: `${this.#who()} was still at work (${work}) when it answered: this answer may be incomplete; ask again when it is done`,
    };
  }

  /** Sends a notification; a failed write is the loss of the process, reported as such. */
  notify(method: string, params: object): void {
    if (this.#state !== 'ready' || !this.#rpc) return;
    this.#rpc.sendNotification(method, params).catch((err: unknown) => {
      this.#note(`could not send ${method}: ${messageOf(err)}`);
    });
  }

  /** New settings: sent now, and answered from now on. */
  setSettings(settings: unknown): void {
    this.#settings = settings;
    this.notify(DidChangeConfigurationNotification.method, { settings: settings ?? null });
  }

  /** Diagnostics of `file` (an absolute path) as it is on disk now (diagnostics.ts). */
  async diagnostics(file: string, options: RequestOptions = {}): Promise<DiagnosticsAnswer> {
    if (this.#state !== 'ready') throw this.#notRunning('textDocument/diagnostic');
    const timeoutMs =
      options.timeoutMs ?? this.#options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return currentDiagnostics(
      {
        documents: this.documents,
        store: this.#store,
        request: (method, params, o) => this.request(method, params, o),
        pull: () =>
          pullOf(this.capabilities, (m) => this.#serverRequests.registered(m), {
            request: (method, params, o) => this.request(method, params, o),
            settings: () => this.#settings,
            initializationOptions: this.#options.initializationOptions,
            serverCommand: this.#options.diagnosticsServerCommand ?? true,
          }),
        barrier: (doc) => barrierOf(this.capabilities, doc),
        settleMs: this.#options.diagnosticsSettleMs ?? DEFAULT_SETTLE_MS,
        now: Date.now,
      },
      file,
      timeoutMs,
    );
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  lease(startedAt: Date): LspLease {
    return { connection: this, startedAt };
  }

  /**
   * What it adds to its pool entry's stats. Its own lifecycle is `lspState`: the entry's
   * `state` (connecting, ready, draining) is the pool's, and this must not hide it.
   */
  stats(): LspConnectionStats {
    const info = this.#result?.serverInfo;
    const kept = this.#store.size;
    return {
      kind: 'languageServer',
      lspState: this.#state,
      positionEncoding: this.#encoding,
      openDocuments: this.documents.openCount,
      retained: {
        diagnosticFiles: kept.files,
        diagnostics: kept.diagnostics,
        registrations: this.#serverRequests.registrationCount,
      },
      server: info ? `${info.name}${info.version ? ` ${info.version}` : ''}` : undefined,
    };
  }

  #who(): string {
    return `language server "${this.name}"`;
  }

  #notRunning(method: string): LspError {
    return new LspError(
      'server',
      `${this.#who()} is not running (${this.#state}): ${method} was not sent`,
    );
  }

  #connect(proc: ServerProcess): ProtocolConnection {
    const reader = new BoundedMessageReader(proc.stdout, {
      name: this.name,
      maxMessageBytes: this.#options.maxMessageBytes ?? MAX_MESSAGE_BYTES,
      onNote: (note) => this.#note(note),
    });
    const rpc = createProtocolConnection(reader, new StreamMessageWriter(proc.stdin));
    handleServer(rpc, {
      requests: this.#serverRequests,
      progress: this.#progress,
      store: this.#store,
      note: (note) => this.#note(note),
    });
    rpc.onClose(() => {
      if (this.#state === 'ready') void this.#lose(`${this.#who()}: its stdout closed`);
    });
    rpc.listen();
    this.#rpc = rpc;
    return rpc;
  }

  #exited(exit: ExitInfo): void {
    if (this.#state === 'ready') void this.#lose(`${this.#who()}: ${describeExit(exit)}`);
  }

  /**
   * It went down on its own: end what is left of it, then tell. The reason is its exit when it
   * exited (stdout often closes a moment before the exit is known), else `fallback`.
   */
  #lose(fallback: string): Promise<void> {
    this.#losing ??= (async () => {
      this.#state = 'lost';
      this.documents.dispose();
      this.#progress.dispose();
      this.#rpc?.dispose();
      const proc = this.#process;
      if (proc) await waitFor(() => proc.exit !== undefined, EXIT_WAIT_MS);
      const reason = proc?.exit ? `${this.#who()}: ${describeExit(proc.exit)}` : fallback;
      await proc?.end(this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      try {
        this.#hooks.onLost?.(withStderr(reason, this.stderrTail()));
      } catch (err) {
        this.#note(`onLost failed: ${messageOf(err)}`);
      }
    })();
    return this.#losing;
  }

  async #close(): Promise<void> {
    const wasReady = this.#state === 'ready';
    if (this.#state === 'starting')
      this.cancel(new LspError('server', `${this.#who()}: closed while starting`));
    if (this.#state !== 'lost') this.#state = 'closing';
    this.documents.dispose();
    this.#progress.dispose();
    if (wasReady && this.#rpc && this.#process?.exit === undefined) {
      const deadline =
        Date.now() + (this.#options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
      // Before `exit` ends it: a child that left its group is found only from a live server.
      await this.#process?.findDescendants();
      await shutdownPolitely(this.#rpc, this.#process, deadline);
    }
    await this.#losing;
    await this.#end();
    if (this.#state !== 'lost') this.#state = 'closed';
  }

  /** Ends the process group (also one that started after a cancel) and the JSON-RPC side. */
  async #end(): Promise<void> {
    await this.#spawning?.catch(() => undefined);
    this.#rpc?.dispose();
    await this.#process?.end(this.#options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  }

  /** The open document a request is about, and its version when the request was sent. */
  #documentOf(params: object | null): AboutDocument | undefined {
    const uri = (params as { textDocument?: { uri?: unknown } } | null)?.textDocument?.uri;
    const file = typeof uri === 'string' ? pathOf(uri) : undefined;
    const doc = file === undefined ? undefined : this.documents.get(file);
    return doc ? { path: doc.path, version: doc.version } : undefined;
  }

  /** The server answered about `about`'s version: it took that version in. */
  #answered(about: AboutDocument | undefined): void {
    if (about) this.#store.answered(about.path, about.version);
  }

  #note(note: string): void {
    this.#notes.push(note.length > 2000 ? `${note.slice(0, 2000)}…` : note);
    if (this.#notes.length > NOTES_KEPT) this.#notes.splice(0, this.#notes.length - NOTES_KEPT);
    this.#hooks.onNote?.(note);
  }
}
