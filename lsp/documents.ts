/**
 * The documents a language server has open, kept equal to the files on disk.
 *
 * An agent edits files with its own tools or a shell command; the server hears nothing of it.
 * So before every request about a file, its content is read from disk (or proven unchanged since
 * the last read, below) and the server is told: opened when it is not open, changed (full text,
 * version + 1) when it differs from what the server has. An answer is then always about the file
 * as it is now.
 *
 * Guarantees:
 * - `sync(path)` reads the file and returns what the server has afterwards: its text is the
 *   file's content at the time of the read, its version the one the server was told. An open
 *   document whose file one stat proves unchanged since its read (real-file.ts
 *   `unchangedSince`: same file, size and times, last changed well before that read) is not read
 *   again; any doubt reads it. Syncs of
 *   one file are serialised (versions only grow, notifications never interleave); versions
 *   grow across close and re-open too, so a version never names two contents.
 * - `delivery: 'open'` makes the server get the content by a fresh `didOpen` (a changed file
 *   is closed and re-opened, an unchanged one whose version came by `didChange` likewise):
 *   servers publish diagnostics for every open, not always for a change (diagnostics.ts).
 *   `delivery: 'fresh'` re-opens even a document the server has by a `didOpen`, to make it
 *   publish again. The channel's `opened` hears of every `didOpen`, and whether the same sync
 *   closed the document first.
 * - `refreshOthers` re-syncs every other open document whose file is not proven unchanged by
 *   the same rule, so cross-file answers (references, diagnostics that depend on
 *   another file) never see an old content of an open file; a deleted file is closed.
 * - Bounded: at most `maxOpen` documents are open (the least recently used is closed first)
 *   and a document unused for `idleMs` is closed, so a server's memory does not grow with every
 *   file ever asked about. A document being synced is never closed under it.
 * - A file is read only at its real path (the path given must be its realpath: a link swapped
 *   in for it or a folder on its way is refused, never followed), only when it is a regular file,
 *   opened non-blocking, and at most `maxFileBytes` (real-file.ts): a FIFO, socket or device
 *   where a document was is refused and its document closed, never waited for, so no read can
 *   hold one of the few threads every file operation of the daemon shares.
 * - Files over `maxFileBytes` and files no `extensionToLanguage` entry covers are refused with
 *   an error naming the file and, respectively, the limit or the configured extensions.
 * - `reopen(paths)` opens documents again on a new server process (after a restart).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { MAX_MESSAGE_BYTES, sizeText } from '../api/index.js';
import { LspError } from './errors.js';
import { readRealFile, unchangedSince, type ReadStamp, type RealFileRead } from './real-file.js';
import { uriOf } from './workspace-files.js';

export const DEFAULT_IDLE_MS = 10 * 60_000;
export const DEFAULT_MAX_OPEN = 64;

export interface DocumentOptions {
  /** ms a document stays open unused. Default 10 minutes. */
  readonly idleMs?: number;
  /** Most documents open at once. Default 64. */
  readonly maxOpen?: number;
  /** Largest file sent to the server. Default MAX_MESSAGE_BYTES (16 MiB). */
  readonly maxFileBytes?: number;
}

/** What documents.ts needs of a connection: to notify the server. */
export interface DocumentChannel {
  notify(method: string, params: object): void;
  /** Told right after each `didOpen`; `reopened`: this sync closed an older version first. */
  opened?(doc: DocumentSnapshot, reopened: boolean): void;
}

/** A document as the server has it. */
export interface DocumentSnapshot {
  readonly path: string;
  readonly uri: string;
  readonly languageId: string;
  readonly version: number;
  readonly text: string;
  /** How the server got this version: a `didOpen` or a `didChange`. */
  readonly via: 'open' | 'change';
}

interface OpenDocument extends DocumentSnapshot {
  /** What its last read saw: one stat tells whether the file is still that (real-file.ts). */
  readonly stamp: ReadStamp;
  lastUsed: number;
}

export interface SyncOptions {
  /** 'open': the server must have this content by a didOpen; 'fresh': by a new one. */
  readonly delivery?: Delivery;
}

type Delivery = 'any' | 'open' | 'fresh';

export class DocumentSync {
  readonly #channel: DocumentChannel;
  #extensionToLanguage: Readonly<Record<string, string>>;
  readonly #idleMs: number;
  readonly #maxOpen: number;
  readonly #maxFileBytes: number;
  readonly #now: () => number;
  readonly #docs = new Map<string, OpenDocument>();
  /** The tail of each file's sync queue. */
  readonly #queues = new Map<string, Promise<unknown>>();
  /** One counter for every document: versions only grow, whatever was closed meanwhile. */
  #version = 0;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(
    channel: DocumentChannel,
    extensionToLanguage: Readonly<Record<string, string>>,
    options: DocumentOptions = {},
    now: () => number = Date.now,
  ) {
    this.#channel = channel;
    this.#extensionToLanguage = extensionToLanguage;
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#maxOpen = Math.max(1, options.maxOpen ?? DEFAULT_MAX_OPEN);
    this.#maxFileBytes = options.maxFileBytes ?? MAX_MESSAGE_BYTES;
    this.#now = now;
    // Unref'd: an idle sweep never keeps the daemon alive.
    this.#sweeper = setInterval(
      () => this.closeIdle(),
      Math.max(10, Math.min(this.#idleMs / 2, 60_000)),
    );
    this.#sweeper.unref();
  }

  /** An `extensionToLanguage` edit changes routing only (no restart). */
  setExtensionToLanguage(map: Readonly<Record<string, string>>): void {
    this.#extensionToLanguage = map;
  }

  /** The languageId for a file: the longest configured extension it ends with. */
  languageOf(file: string): string | undefined {
    const best = extensionOf(file, Object.keys(this.#extensionToLanguage));
    return best === undefined ? undefined : this.#extensionToLanguage[best];
  }

  /** The largest file a server is sent (answers quote no larger file either). */
  get maxFileBytes(): number {
    return this.#maxFileBytes;
  }

  extensions(): string[] {
    return Object.keys(this.#extensionToLanguage).sort();
  }

  /** What the server has of `file` now, when it is open. */
  get(file: string): DocumentSnapshot | undefined {
    return this.#docs.get(file);
  }

  get openCount(): number {
    return this.#docs.size;
  }

  openPaths(): string[] {
    return [...this.#docs.keys()].sort();
  }

  /** Marks the document used now (a request about it finished). */
  touch(file: string): void {
    const doc = this.#docs.get(file);
    if (doc) doc.lastUsed = this.#now();
  }

  /** Reads `file` from disk and brings the server to its content (see the guarantees). */
  sync(file: string, options: SyncOptions = {}): Promise<DocumentSnapshot> {
    return this.#serial(file, () => this.#sync(file, options.delivery ?? 'any'));
  }

  /** Re-syncs the other open documents whose files changed on disk (deleted ones close). */
  async refreshOthers(except?: string): Promise<void> {
    const stale: string[] = [];
    await Promise.all(
      [...this.#docs.values()].map(async (doc) => {
        if (doc.path === except) return;
        if (!(await this.#unchanged(doc))) stale.push(doc.path);
      }),
    );
    await Promise.all(stale.map((file) => this.sync(file).catch(() => undefined)));
  }

  /** Opens `paths` again (a new server process); files that are gone are skipped. */
  async reopen(paths: readonly string[]): Promise<void> {
    await Promise.all(paths.map((file) => this.sync(file).catch(() => undefined)));
  }

  /** Closes documents unused for `idleMs`; the sweeper calls it. */
  closeIdle(): void {
    const limit = this.#now() - this.#idleMs;
    for (const doc of [...this.#docs.values()]) {
      if (doc.lastUsed <= limit && !this.#queues.has(doc.path)) this.#close(doc.path);
    }
  }

  /** Stops the sweeper; the server is going away, so nothing is sent. */
  dispose(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  async #sync(file: string, delivery: Delivery): Promise<DocumentSnapshot> {
    const languageId = this.languageOf(file);
    if (languageId === undefined) {
      throw new LspError(
        'badRequest',
        `no language server handles ${path.basename(file)}: the configured extensions are ${this.extensions().join(', ') || '(none)'}`,
      );
    }
    const known = this.#docs.get(file);
    const keeps = (d: OpenDocument | undefined): d is OpenDocument =>
      d !== undefined && (delivery === 'any' || (delivery === 'open' && d.via === 'open'));
    if (keeps(known) && (await this.#unchanged(known))) {
      known.lastUsed = this.#now();
      return known;
    }
    const read = await readRealFile(file, this.#maxFileBytes);
    if (read.kind !== 'ok') {
      if (this.#docs.has(file)) this.#close(file);
      throw new LspError('badRequest', refusalOf(file, read, this.#maxFileBytes));
    }
    const { stamp } = read;
    const doc = this.#docs.get(file);
    const now = this.#now();
    if (keeps(doc) && doc.text === read.text) {
      const same: OpenDocument = { ...doc, stamp, lastUsed: now };
      this.#docs.set(file, same);
      return same;
    }
    if (doc && delivery === 'any') {
      const changed: OpenDocument = {
        ...doc,
        version: ++this.#version,
        text: read.text,
        via: 'change',
        stamp,
        lastUsed: now,
      };
      this.#docs.set(file, changed);
      this.#channel.notify('textDocument/didChange', {
        textDocument: { uri: changed.uri, version: changed.version },
        contentChanges: [{ text: changed.text }],
      });
      return changed;
    }
    if (doc) this.#close(file);
    else this.#evictFor(file);
    const opened: OpenDocument = {
      path: file,
      uri: uriOf(file),
      languageId,
      version: ++this.#version,
      text: read.text,
      via: 'open',
      stamp,
      lastUsed: now,
    };
    this.#docs.set(file, opened);
    this.#channel.notify('textDocument/didOpen', {
      textDocument: {
        uri: opened.uri,
        languageId,
        version: opened.version,
        text: opened.text,
      },
    });
    this.#channel.opened?.(opened, doc !== undefined);
    return opened;
  }

  /** Whether one stat proves `doc`'s file unchanged since its read (a failed stat: no). */
  async #unchanged(doc: OpenDocument): Promise<boolean> {
    const now = await stat(doc.path, { bigint: true }).catch(() => undefined);
    return now !== undefined && unchangedSince(doc.stamp, now);
  }

  /** Makes room for one more document: closes the least recently used idle ones. */
  #evictFor(file: string): void {
    const others = [...this.#docs.values()]
      .filter((d) => d.path !== file && !this.#queues.has(d.path))
      .sort((a, b) => a.lastUsed - b.lastUsed);
    while (this.#docs.size >= this.#maxOpen && others.length > 0) this.#close(others.shift()!.path);
  }

  #close(file: string): void {
    const doc = this.#docs.get(file);
    if (!doc) return;
    this.#docs.delete(file);
    this.#channel.notify('textDocument/didClose', { textDocument: { uri: doc.uri } });
  }

  /** Runs `work` after every earlier sync of `file`. */
  #serial<T>(file: string, work: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(file) ?? Promise.resolve();
    const run = before.then(work, work);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(file, tail);
    void tail.then(() => {
      if (this.#queues.get(file) === tail) this.#queues.delete(file);
    });
    return run;
  }
}

/** Why `file` was not read, naming it (and the limit, for a file over it). */
function refusalOf(
  file: string,
  read: Exclude<RealFileRead, { kind: 'ok' }>,
  maxBytes: number,
): string {
  switch (read.kind) {
    case 'missing':
      return `no such file: ${file}`;
    case 'tooLarge':
      return `${file} is too large to send to a language server (${sizeText(read.size)}, the limit is ${sizeText(maxBytes)})`;
    case 'error':
      return `${file}: ${read.message}`;
  }
}

/**
 * Which of `extensions` a file is handled by: the longest one its name ends with (`.d.ts`
 * over `.ts`), undefined when none. The one rule for a server's documents and for choosing
 * the server of a file (the gateway's `lsp_*` tools).
 */
export function extensionOf(file: string, extensions: Iterable<string>): string | undefined {
  const name = path.basename(file);
  let best: string | undefined;
  for (const ext of extensions) {
    if (!name.endsWith(ext)) continue;
    if (best === undefined || ext.length > best.length) best = ext;
  }
  return best;
}
