/**
 * The tool/prompt registry of one session: what each Ready server offers now, already
 * filtered. Replacing an entry is one step, so a rolling update swaps tools with no gap.
 *
 * Guarantees: `set` and `delete` notify listeners only when the visible content changed;
 * listeners get the server name; readers always see a consistent per-server entry.
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
}

export type RegistryListener = (serverName: string) => void;

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
    if (!before || !sameVisible(before, entry)) this.#emit(name);
  }

  delete(name: string): void {
    if (this.#entries.delete(name)) this.#emit(name);
  }

  onChange(listener: RegistryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(name: string): void {
    for (const l of this.#listeners) l(name);
  }
}

function sameVisible(a: RegistryEntry, b: RegistryEntry): boolean {
  return a.key === b.key && jsonEqual(a.tools, b.tools) && jsonEqual(a.prompts, b.prompts);
}
