/**
 * The pins file format (issue #35): per scope and connectionId, the digest and definition of
 * every tool and prompt the user accepted. No I/O (pin-store.ts reads and writes it).
 *
 * Shape:
 * `{ "version": 1, "scopes": { SCOPE: { CONNECTION_ID: { "approvalHash"?, "pinnedAt",
 *   "tools": { NAME: PIN }, "prompts": { NAME: PIN } } } } }`, a PIN being
 * `{ "digest", "definition", "raw"?: true, "rejected"?: [DIGEST…] }`. SCOPE is the project
 * root (realpath) for a gated server, `scope:user` (…`system`, `cli`, `session`) otherwise.
 *
 * Guarantees:
 * - Any string is a safe scope, connectionId or name: the model is Maps, never plain objects
 *   assigned into, so `__proto__` is an ordinary key.
 * - Parsing is all or nothing: a file that is not JSON, of another version, or with one entry
 *   out of shape is a problem naming the place, never half-read. A pin store read halfway
 *   could accept a changed tool; the store treats a problem as "hold everything" (fail closed).
 */
import type { Definition } from '../api/index.js';

export const PINS_VERSION = 1;

export interface Pin {
  /** `definitionDigest` of the definition accepted. */
  readonly digest: string;
  /** That definition, to show what changed. */
  readonly definition: Definition;
  /** The user accepted its unshown characters: passed to agents as they are, not escaped. */
  readonly raw?: boolean;
  /** Definitions of this name the user rejected: kept out without asking again. */
  readonly rejected?: readonly string[];
}

export interface ServerPins {
  /** The approval hash of the config the pins were taken under (gated servers). */
  readonly approvalHash?: string;
  /** When the first pin was taken (ISO). */
  readonly pinnedAt: string;
  readonly tools: ReadonlyMap<string, Pin>;
  readonly prompts: ReadonlyMap<string, Pin>;
}

/** Scope key → connectionId → pins. */
export type PinsContent = ReadonlyMap<string, ReadonlyMap<string, ServerPins>>;

export type ParsedPins =
  | { readonly ok: true; readonly content: PinsContent }
  | { readonly ok: false; readonly problem: string };

class Shape extends Error {}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function record(v: unknown, at: string): Record<string, unknown> {
  if (!isRecord(v)) throw new Shape(`${at}: expected an object`);
  return v;
}

function text(v: unknown, at: string): string {
  if (typeof v !== 'string') throw new Shape(`${at}: expected a string`);
  return v;
}

const where = (at: string, key: string): string => `${at}.${JSON.stringify(key)}`;

function pinOf(v: unknown, at: string): Pin {
  const o = record(v, at);
  const digest = text(o['digest'], `${at}.digest`);
  if (!/^[0-9a-f]{64}$/.test(digest)) throw new Shape(`${at}.digest: expected 64 hex digits`);
  const definition = record(o['definition'], `${at}.definition`);
  const raw = o['raw'];
  if (raw !== undefined && raw !== true) throw new Shape(`${at}.raw: expected true or absent`);
  const rejected = o['rejected'];
  if (
    rejected !== undefined &&
    !(Array.isArray(rejected) && rejected.every((d) => typeof d === 'string'))
  )
    throw new Shape(`${at}.rejected: expected a list of digests`);
  return {
    digest,
    definition,
    ...(raw === true ? { raw: true } : {}),
    ...(rejected === undefined ? {} : { rejected }),
  };
}

function pinsOf(v: unknown, at: string): ReadonlyMap<string, Pin> {
  return new Map(Object.entries(record(v, at)).map(([k, p]) => [k, pinOf(p, where(at, k))]));
}

function serverPinsOf(v: unknown, at: string): ServerPins {
  const o = record(v, at);
  const hash = o['approvalHash'];
  return {
    ...(hash === undefined ? {} : { approvalHash: text(hash, `${at}.approvalHash`) }),
    pinnedAt: text(o['pinnedAt'], `${at}.pinnedAt`),
    tools: pinsOf(o['tools'] ?? {}, `${at}.tools`),
    prompts: pinsOf(o['prompts'] ?? {}, `${at}.prompts`),
  };
}

export function parsePins(source: string): ParsedPins {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (err) {
    return { ok: false, problem: `not JSON (${(err as Error).message})` };
  }
  try {
    const top = record(value, '(top)');
    if (top['version'] !== PINS_VERSION)
      throw new Shape(`version: expected ${PINS_VERSION}, got ${JSON.stringify(top['version'])}`);
    const scopes = record(top['scopes'] ?? {}, 'scopes');
    const content = new Map<string, ReadonlyMap<string, ServerPins>>();
    for (const [scope, servers] of Object.entries(scopes)) {
      const at = where('scopes', scope);
      content.set(
        scope,
        new Map(
          Object.entries(record(servers, at)).map(([id, s]) => [
            id,
            serverPinsOf(s, where(at, id)),
          ]),
        ),
      );
    }
    return { ok: true, content };
  } catch (err) {
    if (err instanceof Shape) return { ok: false, problem: err.message };
    throw err;
  }
}

const objectOf = <V, W>(map: ReadonlyMap<string, V>, f: (v: V) => W): Record<string, W> => {
  // defineProperty: a key named `__proto__` is written as a key, not as the prototype.
  const out: Record<string, W> = {};
  for (const [k, v] of map) Object.defineProperty(out, k, { value: f(v), enumerable: true });
  return out;
};

export function serializePins(content: PinsContent): string {
  const scopes = objectOf(content, (servers) =>
    objectOf(servers, (s) => ({
      ...(s.approvalHash === undefined ? {} : { approvalHash: s.approvalHash }),
      pinnedAt: s.pinnedAt,
      tools: objectOf(s.tools, (p) => p),
      prompts: objectOf(s.prompts, (p) => p),
    })),
  );
  return `${JSON.stringify({ version: PINS_VERSION, scopes }, null, 2)}\n`;
}

/** `content` with the pins of `connectionId` under `scope` replaced (a copy). */
export function withServerPins(
  content: PinsContent,
  scope: string,
  connectionId: string,
  pins: ServerPins,
): PinsContent {
  const next = new Map(content);
  const servers = new Map(content.get(scope) ?? []);
  servers.set(connectionId, pins);
  next.set(scope, servers);
  return next;
}
