/**
 * A server's catalog: what it listed last (tools, prompts, resources and templates,
 * instructions, capabilities, serverInfo), kept per connectionId so an agent's lists are
 * answered while no process runs (issue #34). Never a trust decision: what a catalog holds goes
 * through the config's filter and the pins like a live listing, and it is only ever used for
 * the exact connectionId it was learned under.
 *
 * Guarantees:
 * - One file per connectionId in the store's folder (made 0700), named by a digest of the id,
 *   written whole (api/private-file.ts) with mode 0600; the file repeats its connectionId, and
 *   one that names another is not used.
 * - A file that is not a regular file (a link, a FIFO), not the user's own, readable or
 *   writable by others, not JSON, of another `version` or shape, or larger than
 *   `MAX_CATALOG_BYTES` is ignored: the server starts as if never seen. Each such file is said
 *   once (`onIgnored`), never trusted, and is replaced by the next catalog learned.
 * - A catalog holds no config: no command, no env, no header, so no secret.
 * - `get` answers from memory after the first read of an id; `remember` updates memory at once
 *   and writes in the background, one write per id at a time (the last one wins); a failed
 *   write costs only the next daemon's warm start and is said through `onIgnored`.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type {
  Implementation,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { jsonEqual, messageOf, readPrivateFile, replaceFile } from '../api/index.js';

export const CATALOG_VERSION = 1;
/** A listing this large is a server's flood, not a catalog: it is not kept. */
export const MAX_CATALOG_BYTES = 8 * 1024 * 1024;

/** The lists an agent may ask for while the server does not run, by method. */
export const CATALOG_LISTS = ['resources/list', 'resources/templates/list'] as const;
export type CatalogList = (typeof CATALOG_LISTS)[number];

/** Whether `method` is one of the lists a catalog keeps. */
export function isCatalogList(method: string): method is CatalogList {
  return (CATALOG_LISTS as readonly string[]).includes(method);
}

export interface Catalog {
  readonly connectionId: string;
  /** When it was learned (ISO time). */
  readonly learnedAt: string;
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  readonly capabilities?: ServerCapabilities;
  readonly serverInfo?: Implementation;
  readonly instructions?: string;
  /** The whole answers (one page, no cursor) the server gave to these lists, when seen. */
  readonly resources?: { readonly resources: readonly Resource[] };
  readonly resourceTemplates?: { readonly resourceTemplates: readonly ResourceTemplate[] };
}

export interface CatalogStoreOptions {
  /** The folder of the catalog files (beside the daemon's socket); absent: memory only. */
  readonly dir?: string;
  /** A file that was not used, or not written, and why (said once per file and cause). */
  readonly onIgnored?: (file: string, why: string) => void;
  readonly now?: () => number;
}

interface CatalogFile {
  readonly version: number;
  readonly catalog: Catalog;
}

export class CatalogStore {
  readonly #dir: string | undefined;
  readonly #onIgnored: (file: string, why: string) => void;
  readonly #now: () => number;
  /** What is known per id; `null`: looked, nothing usable. */
  readonly #known = new Map<string, Catalog | null>();
  readonly #writing = new Map<string, Promise<void>>();
  readonly #said = new Set<string>();
  #dirReady: Promise<void> | undefined;

  constructor(options: CatalogStoreOptions) {
    this.#dir = options.dir;
    this.#onIgnored = options.onIgnored ?? (() => undefined);
    this.#now = options.now ?? Date.now;
  }

  /** The file of `connectionId`'s catalog; undefined for a store in memory only. */
  fileOf(connectionId: string): string | undefined {
    if (this.#dir === undefined) return undefined;
    const digest = createHash('sha256').update(connectionId).digest('hex').slice(0, 32);
    return path.join(this.#dir, `${digest}.json`);
  }

  /** What `connectionId` listed last, from memory or its file; undefined when never seen. */
  async get(connectionId: string): Promise<Catalog | undefined> {
    const known = this.#known.get(connectionId);
    if (known !== undefined) return known ?? undefined;
    const read = await this.#read(connectionId);
    // A remember() while reading wins: it is newer than any file.
    if (!this.#known.has(connectionId)) this.#known.set(connectionId, read ?? null);
    return this.#known.get(connectionId) ?? undefined;
  }

  /** Known in memory now (no read): what a synchronous caller may use. */
  peek(connectionId: string): Catalog | undefined {
    return this.#known.get(connectionId) ?? undefined;
  }

  /**
   * `connectionId` listed this now: its tools, prompts and what it declared. Lists remembered
   * before (resources) are kept while the capabilities still declare them.
   */
  remember(
    connectionId: string,
    listing: Omit<Catalog, 'connectionId' | 'learnedAt' | 'resources' | 'resourceTemplates'>,
  ): Catalog {
    const before = this.#known.get(connectionId) ?? undefined;
    // Every pass over a Ready server publishes again: an unchanged listing writes nothing.
    if (before && sameListing(before, listing)) return before;
    const resources = listing.capabilities?.resources ? before : undefined;
    const catalog: Catalog = {
      connectionId,
      learnedAt: new Date(this.#now()).toISOString(),
      ...listing,
      ...(resources?.resources ? { resources: resources.resources } : {}),
      ...(resources?.resourceTemplates ? { resourceTemplates: resources.resourceTemplates } : {}),
    };
    this.#put(catalog);
    return catalog;
  }

  /** The server's whole answer to one of CATALOG_LISTS (asked without a cursor, no next page). */
  rememberList(connectionId: string, method: CatalogList, result: Record<string, unknown>): void {
    const before = this.#known.get(connectionId) ?? undefined;
    if (!before || result.nextCursor !== undefined) return;
    // Agents list often; the same answer again writes nothing.
    if (method === 'resources/list' && Array.isArray(result.resources)) {
      if (!jsonEqual(before.resources?.resources, result.resources))
        this.#put({ ...before, resources: { resources: result.resources as Resource[] } });
    } else if (method === 'resources/templates/list' && Array.isArray(result.resourceTemplates)) {
      if (!jsonEqual(before.resourceTemplates?.resourceTemplates, result.resourceTemplates))
        this.#put({
          ...before,
          resourceTemplates: { resourceTemplates: result.resourceTemplates as ResourceTemplate[] },
        });
    }
  }

  /** The answer a list gets from the catalog, when it holds one. */
  answer(connectionId: string, method: string): Record<string, unknown> | undefined {
    const catalog = this.peek(connectionId);
    if (method === 'resources/list') return catalog?.resources && { ...catalog.resources };
    if (method === 'resources/templates/list')
      return catalog?.resourceTemplates && { ...catalog.resourceTemplates };
    return undefined;
  }

  /** Resolves when every write begun has ended (tests, shutdown). */
  async flushed(): Promise<void> {
    while (this.#writing.size > 0) await Promise.allSettled([...this.#writing.values()]);
  }

  #put(catalog: Catalog): void {
    this.#known.set(catalog.connectionId, catalog);
    const id = catalog.connectionId;
    const previous = this.#writing.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.#write(id));
    this.#writing.set(id, next);
    void next.finally(() => {
      if (this.#writing.get(id) === next) this.#writing.delete(id);
    });
  }

  /** Writes what memory holds for `id` now (so queued writes collapse into the latest). */
  async #write(id: string): Promise<void> {
    const catalog = this.#known.get(id);
    const file = this.fileOf(id);
    if (!catalog || file === undefined || this.#dir === undefined) return;
    const dir = this.#dir;
    const text = JSON.stringify({ version: CATALOG_VERSION, catalog } satisfies CatalogFile);
    if (Buffer.byteLength(text) > MAX_CATALOG_BYTES) {
      this.#ignored(
        file,
        `the listing is over ${MAX_CATALOG_BYTES} bytes; it is kept in memory only`,
      );
      return;
    }
    try {
      this.#dirReady ??= fs.mkdir(dir, { recursive: true, mode: 0o700 }).then(() => undefined);
      await this.#dirReady;
      await replaceFile(file, text, 0o600);
    } catch (err) {
      this.#dirReady = undefined;
      this.#ignored(
        file,
        `not written (${messageOf(err)}); the next daemon starts the server to learn it`,
      );
    }
  }

  async #read(connectionId: string): Promise<Catalog | undefined> {
    const file = this.fileOf(connectionId);
    if (file === undefined) return undefined;
    let read;
    try {
      read = await readPrivateFile(file);
    } catch (err) {
      this.#ignored(file, `not readable (${messageOf(err)})`);
      return undefined;
    }
    if (read.kind === 'missing') return undefined;
    if (read.kind === 'link') return this.#ignored(file, 'it is a symbolic link');
    if (read.kind === 'notRegular') return this.#ignored(file, 'it is not a regular file');
    const { stat, text } = read;
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid())
      return this.#ignored(file, 'it belongs to another user');
    if ((stat.mode & 0o077) !== 0)
      return this.#ignored(
        file,
        `others may read or write it (mode ${(stat.mode & 0o777).toString(8)})`,
      );
    if (stat.size > MAX_CATALOG_BYTES) return this.#ignored(file, 'it is too large');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return this.#ignored(file, 'it is not JSON');
    }
    const problem = problemOf(parsed, connectionId);
    if (problem !== undefined) return this.#ignored(file, problem);
    return (parsed as CatalogFile).catalog;
  }

  #ignored(file: string, why: string): undefined {
    const said = `${file}\0${why}`;
    if (!this.#said.has(said)) {
      this.#said.add(said);
      this.#onIgnored(file, why);
    }
    return undefined;
  }
}

/** Why a parsed file is not a catalog of `connectionId`; undefined when it is one. */
function problemOf(parsed: unknown, connectionId: string): string | undefined {
  if (!isObject(parsed)) return 'it is not a catalog file';
  if (parsed.version !== CATALOG_VERSION)
    return `it is of version ${JSON.stringify(parsed.version)}, not ${CATALOG_VERSION}`;
  const c = parsed.catalog;
  if (!isObject(c)) return 'it holds no catalog';
  if (c.connectionId !== connectionId) return 'it names another connection';
  if (typeof c.learnedAt !== 'string') return 'it says no time';
  if (!Array.isArray(c.tools) || !c.tools.every((t) => isObject(t) && typeof t.name === 'string'))
    return 'its tools are not a list of tools';
  if (
    !Array.isArray(c.prompts) ||
    !c.prompts.every((p) => isObject(p) && typeof p.name === 'string')
  )
    return 'its prompts are not a list of prompts';
  for (const field of ['capabilities', 'serverInfo', 'resources', 'resourceTemplates'] as const)
    if (c[field] !== undefined && !isObject(c[field])) return `its ${field} is not an object`;
  if (c.instructions !== undefined && typeof c.instructions !== 'string')
    return 'its instructions are not text';
  return undefined;
}

function sameListing(a: Catalog, b: Omit<Catalog, 'connectionId' | 'learnedAt'>): boolean {
  return (
    jsonEqual(a.tools, b.tools) &&
    jsonEqual(a.prompts, b.prompts) &&
    jsonEqual(a.capabilities, b.capabilities) &&
    jsonEqual(a.serverInfo, b.serverInfo) &&
    a.instructions === b.instructions
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
