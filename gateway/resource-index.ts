/**
 * Which server serves a resource URI. The gateway never rewrites URIs (a resource link a tool
 * returns must be readable as it is), so reads and subscriptions are routed by this index.
 *
 * Guarantees:
 * - A URI a server listed routes to that server; two servers listing one URI: the one of the
 *   higher-precedence scope (DESIGN §4 rule 1; same scope: the first by name) serves it, and
 *   the other is reported once through `onDuplicate`.
 * - A URI nobody listed routes to the server whose template matches it (same precedence), or
 *   to the server whose tool result last linked or embedded it.
 * - Bounded: URIs learned from tool results are forgotten oldest first past MAX_LEARNED.
 */
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { SCOPE_PRECEDENCE, type Scope } from '../api/index.js';

const MAX_LEARNED = 10_000;

export interface ServerRank {
  readonly server: string;
  readonly scope: Scope;
}

/** Higher precedence first; the same scope by name, so the order never depends on timing. */
export function byPrecedence(a: ServerRank, b: ServerRank): number {
  const d = SCOPE_PRECEDENCE.indexOf(b.scope) - SCOPE_PRECEDENCE.indexOf(a.scope);
  return d !== 0 ? d : a.server.localeCompare(b.server);
}

export class ResourceIndex {
  #listed = new Map<string, string>();
  #templates: { server: string; template: UriTemplate; text: string }[] = [];
  readonly #learned = new Map<string, string>();
  readonly #reported = new Set<string>();

  constructor(private readonly onDuplicate: (uri: string, kept: string, dropped: string) => void) {}

  /**
   * Replaces the listed URIs with these servers' listings, given in precedence order (highest
   * first). Returns, per server, whether each of its resources is the one served (false: a
   * higher server lists the same URI).
   */
  replaceListed(listings: readonly { server: string; uris: readonly string[] }[]): boolean[][] {
    const next = new Map<string, string>();
    const kept = listings.map(({ server, uris }) =>
      uris.map((uri) => {
        const owner = next.get(uri);
        if (owner === undefined) {
          next.set(uri, server);
          return true;
        }
        // The same server listing a URI twice is its own business; another server is reported.
        if (owner !== server) this.#duplicate(uri, owner, server);
        return false;
      }),
    );
    this.#listed = next;
    return kept;
  }

  /** Replaces the templates (precedence order, highest first). Bad templates are skipped. */
  replaceTemplates(listings: readonly { server: string; templates: readonly string[] }[]): void {
    const next: { server: string; template: UriTemplate; text: string }[] = [];
    for (const { server, templates } of listings)
      for (const text of templates) {
        try {
          next.push({ server, template: new UriTemplate(text), text });
        } catch {
          // A template the SDK cannot parse can only be listed, never matched.
        }
      }
    this.#templates = next;
  }

  /** A URI a tool result of `server` linked or embedded. */
  learn(uri: string, server: string): void {
    this.#learned.delete(uri);
    this.#learned.set(uri, server);
    if (this.#learned.size > MAX_LEARNED) {
      const oldest = this.#learned.keys().next();
      if (!oldest.done) this.#learned.delete(oldest.value);
    }
  }

  /** The URIs a tool result of `server` links (`resource_link`) or embeds (`resource`). */
  learnLinks(server: string, result: Record<string, unknown>): void {
    const content = result.content;
    if (!Array.isArray(content)) return;
    for (const item of content as unknown[]) {
      if (typeof item !== 'object' || item === null) continue;
      const block = item as { type?: unknown; uri?: unknown; resource?: { uri?: unknown } };
      if (block.type === 'resource_link' && typeof block.uri === 'string')
        this.learn(block.uri, server);
      else if (block.type === 'resource' && typeof block.resource?.uri === 'string')
        this.learn(block.resource.uri, server);
    }
  }

  /** The server serving `uri`, if any is known. */
  route(uri: string): string | undefined {
    const listed = this.#listed.get(uri);
    if (listed !== undefined) return listed;
    for (const t of this.#templates) {
      try {
        if (t.template.match(uri)) return t.server;
      } catch {
        // A URI too long or odd for the matcher matches nothing.
      }
    }
    return this.#learned.get(uri);
  }

  /** The server that listed the template `text` (for completion of `ref/resource`). */
  templateOwner(text: string): string | undefined {
    return this.#templates.find((t) => t.text === text)?.server;
  }

  #duplicate(uri: string, kept: string, dropped: string): void {
    const key = JSON.stringify([uri, kept, dropped]);
    if (this.#reported.has(key)) return;
    if (this.#reported.size >= MAX_LEARNED) this.#reported.clear();
    this.#reported.add(key);
    this.onDuplicate(uri, kept, dropped);
  }
}
