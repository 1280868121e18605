/**
 * Paging of the gateway's merged lists to the agent, with opaque cursors.
 *
 * Guarantees:
 * - The first page (no cursor) takes a snapshot of the whole list; every later page of that
 *   listing reads the same snapshot, so an agent paging through never sees an item twice or
 *   misses one because the servers changed in between.
 * - A cursor is opaque (a random snapshot id and an offset) and only good on the connection
 *   that issued it, for the kind of list it came from; an unknown, expired or forged one is an
 *   InvalidParams error saying to list again from the start.
 * - Memory is bounded: at most `maxSnapshots` listings are kept, the oldest dropped first.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

export interface Page<T> {
  readonly items: T[];
  readonly nextCursor?: string;
}

interface Snapshot {
  readonly kind: string;
  readonly items: readonly unknown[];
}

export class Pager {
  readonly #snapshots = new Map<string, Snapshot>();

  constructor(
    readonly pageSize: number,
    private readonly maxSnapshots = 16,
  ) {
    if (!Number.isInteger(pageSize) || pageSize < 1)
      throw new Error(`page size must be a positive integer, not ${pageSize}`);
  }

  /** One page of the list `kind`: from a new snapshot (`build`) or the cursor's snapshot. */
  async page<T>(
    kind: string,
    cursor: string | undefined,
    build: () => Promise<readonly T[]>,
  ): Promise<Page<T>> {
    if (cursor === undefined) return this.#cut(kind, this.#id(), await build(), 0);
    const [id, offsetText] = cursor.split('.');
    const snapshot = id === undefined ? undefined : this.#snapshots.get(id);
    const offset = Number(offsetText);
    if (
      id === undefined ||
      !snapshot ||
      snapshot.kind !== kind ||
      !Number.isInteger(offset) ||
      offset <= 0 ||
      offset >= snapshot.items.length
    )
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown or expired cursor for ${kind}; list again without a cursor`,
      );
    return this.#cut(kind, id, snapshot.items as readonly T[], offset);
  }

  #cut<T>(kind: string, id: string, items: readonly T[], offset: number): Page<T> {
    const end = offset + this.pageSize;
    if (end >= items.length) {
      this.#snapshots.delete(id);
      return { items: items.slice(offset) };
    }
    if (!this.#snapshots.has(id)) {
      this.#snapshots.set(id, { kind, items });
      while (this.#snapshots.size > this.maxSnapshots) {
        const oldest = this.#snapshots.keys().next();
        if (oldest.done) break;
        this.#snapshots.delete(oldest.value);
      }
    }
    return { items: items.slice(offset, end), nextCursor: `${id}.${end}` };
  }

  #id(): string {
    return randomBytes(9).toString('base64url');
  }
}

/** A page as the result of a list request: its items under `key`, and the cursor if any. */
export function pageResult<T, K extends string>(
  page: Page<T>,
  key: K,
): Record<K, T[]> & { nextCursor?: string } {
  return {
    [key]: page.items,
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
  } as Record<K, T[]> & { nextCursor?: string };
}
