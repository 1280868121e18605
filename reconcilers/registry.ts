/**
 * The tool/prompt registry of one session: what each Ready server offers now, already
 * filtered. Replacing an entry is one step, so a rolling update swaps tools with no gap.
 *
 * Guarantees: `set` and `delete` notify listeners only when the visible content changed or
 * what serves it (an idle server started, a live one stopped); listeners get the server name
 * and whether what agents see changed; readers always see a consistent per-server entry.
 */
import type { Prompt, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';
import { jsonEqual } from '../api/index.js';
import type { PinReview } from './pins.js';

export interface RegistryEntry {
  /** Pool key of the lease that serves these tools (for routing calls). */
  readonly key: string;
  readonly connectionId: string;
  readonly tools: readonly Tool[];
  readonly prompts: readonly Prompt[];
  /** What the server declared in `initialize` (the gateway forwards only what it offers). */
  readonly capabilities?: ServerCapabilities;
  readonly instructions?: string;
  /** What the pins held back or escaped of the listing (absent: no pinning). */
  readonly pins?: PinReview;
  /**
   * Served from the server's catalog while no process runs (issue #34): a request needs it
   * started first (Session.request); nothing is attached to it.
   */
  readonly idle?: true;
}

/** `visible`: what agents see (tools, prompts, the lease) changed, not only whether it runs. */
export type RegistryListener = (serverName: string, visible: boolean) => void;

export class Registry {
  readonly #entries = new Map<string, RegistryEntry>();
  readonly #listeners = new Set<RegistryListener>();

  get(name: string): RegistryEntry | undefined {
    return this.#entries.get(name);
  }

  entries(): ReadonlyMap<string, RegistryEntry> {
    return this.#entries;
  }

  set(name: string, entry: RegistryEntry): void {
    const before = this.#entries.get(name);
    this.#entries.set(name, entry);
    if (!before || !sameVisible(before, entry)) this.#emit(name, true);
    else if (before.idle !== entry.idle) this.#emit(name, false);
  }

  delete(name: string): void {
    if (this.#entries.delete(name)) this.#emit(name, true);
  }

  onChange(listener: RegistryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(name: string, visible: boolean): void {
    for (const l of this.#listeners) l(name, visible);
  }
}

function sameVisible(a: RegistryEntry, b: RegistryEntry): boolean {
  return a.key === b.key && jsonEqual(a.tools, b.tools) && jsonEqual(a.prompts, b.prompts);
}
