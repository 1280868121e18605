/**
 * What a language server connection (connection.ts) is started with and promises by default:
 * its options (built from the server's `.lsp.json` entry), its owner's hooks, its states, and
 * the bounds of its start, requests, shutdown and waits. Types and constants only.
 *
 * Guarantees: every bound has a default here, so an entry that sets none still starts, asks
 * and stops within known times.
 */
import type { ProcessHooks } from '../proc/index.js';
import type { DocumentOptions } from './documents.js';
import type { PositionEncoding } from './positions.js';
import type { SpawnServer } from './server-process.js';

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 3_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_KILL_GRACE_MS = 1_000;
/**
 * How long a question waits for the work a server reports (loading a project) to end. A cold
 * 300-file TypeScript project loads in 3–15 s on a loaded 2-core machine.
 */
export const DEFAULT_READY_WAIT_MS = 20_000;
/** How many of the server's log and show messages are kept for `notes()`. */
export const NOTES_KEPT = 50;

/** One language server as the client starts it (built from its `.lsp.json` entry). */
export interface LspServerOptions {
  readonly name: string;
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** The environment the process starts from (the agent's). Default: this process's. */
  readonly baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Absolute realpath: rootUri, the one workspace folder, and the process's cwd. */
  readonly workspaceFolder: string;
  /** `{".ts": "typescript"}`: which files it handles and their languageId. */
  readonly extensionToLanguage: Readonly<Record<string, string>>;
  readonly initializationOptions?: unknown;
  /** Answers `workspace/configuration`; sent as `didChangeConfiguration`. */
  readonly settings?: unknown;
  readonly startupTimeoutMs?: number;
  readonly shutdownTimeoutMs?: number;
  /** Default bound of a request. */
  readonly requestTimeoutMs?: number;
  /** After SIGTERM to the group, how long before SIGKILL. */
  readonly killGraceMs?: number;
  /** Largest message read from the server. Default MAX_MESSAGE_BYTES (16 MiB). */
  readonly maxMessageBytes?: number;
  readonly documents?: DocumentOptions;
  /** Rule 4 of diagnostics.ts. Default DEFAULT_SETTLE_MS. */
  readonly diagnosticsSettleMs?: number;
  /**
   * Rule 2 of diagnostics.ts: diagnostics pulled through the server's own command where it has
   * one (typescript-language-server). Default true; false reads its publishes (rule 4) instead.
   */
  readonly diagnosticsServerCommand?: boolean;
  /** How long a question waits for the server's reported work to end. Default DEFAULT_READY_WAIT_MS. */
  readonly readyWaitMs?: number;
}

export interface LspConnectionHooks {
  /** It went down on its own (after open resolved); called once, after the group ended. */
  readonly onLost?: (reason: string) => void;
  /** What the server logged or showed, and what was dropped of its output. */
  readonly onNote?: (note: string) => void;
  /** Starts the process; default: a process group of our own (server-process.ts). */
  readonly spawn?: SpawnServer;
  /**
   * What to tell of the server's processes: its pid and each descendant that left its group,
   * and when they are gone. The daemon's orphan record: `recordingHooks(recorder, { kind:
   * 'LanguageServer', connectionId, command })` (proc/orphans.ts).
   */
  readonly processes?: ProcessHooks;
}

export type LspConnectionState = 'new' | 'starting' | 'ready' | 'closing' | 'closed' | 'lost';

export interface RequestOptions {
  readonly timeoutMs?: number;
  /** The asker gave up: the request is cancelled (`$/cancelRequest`) and rejects at once. */
  readonly signal?: AbortSignal;
}

/** An answer asked for when the server was ready (`whenReady`). */
export interface ReadyAnswer<R> {
  readonly result: R;
  /** Present when the server was still at work when it answered: the answer may be partial. */
  readonly partial?: string;
}

/**
 * What a connection adds to its pool entry's stats. Its own lifecycle is `lspState`: the
 * entry's `state` (connecting, ready, draining) is the pool's, and this must not hide it.
 */
export interface LspConnectionStats {
  readonly kind: 'languageServer';
  readonly lspState: LspConnectionState;
  readonly positionEncoding: PositionEncoding;
  readonly openDocuments: number;
  /** What the client keeps of the server's own messages (each within its bound). */
  readonly retained: {
    readonly diagnosticFiles: number;
    readonly diagnostics: number;
    readonly registrations: number;
  };
  readonly server: string | undefined;
}
