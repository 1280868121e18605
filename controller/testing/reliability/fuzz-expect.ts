/**
 * What the informer must make of a fuzzed file, worked out without the informer: the baseline
 * every case starts from, an editor-grade parse, Claude-shape normalisation (api's own), the
 * precedence merge, and a validity check of every server that made it into a desired set.
 */
import { stripComments } from 'jsonc-parser';
import {
  canonicalJson,
  normalizeServerConfig,
  type McpServerConfig,
  isObject,
} from '../../../api/index.js';
import type { Target } from './fuzz-inputs.js';

/** The valid content each file is reset to before a case (trust stays on all along). */
export function baselineDocs(workspace: string): Record<Target, unknown> {
  return {
    user: {
      mcpServers: {
        u1: { command: 'node', args: ['u'] },
        shared: { command: 'node', args: ['user'] },
      },
      mcp: { excluded: ['nobody'] },
      ui: { theme: 'dark' },
    },
    workspace: { mcpServers: { w1: { httpUrl: 'https://example.test/w' } } },
    project: {
      mcpServers: {
        p1: { type: 'stdio', command: 'node' },
        shared: { command: 'node', args: ['project'] },
      },
    },
    cli: { mcpServers: { c1: { url: 'http://127.0.0.1:9/sse' } } },
    trust: { [workspace]: 'TRUST_FOLDER' },
  };
}

export type Parsed = { readonly ok: true; readonly doc: unknown } | { readonly ok: false };

/**
 * Parses as JSON, allowing comments; an empty or comment-only text is the empty document.
 * `ok: false` means "cannot tell" (e.g. trailing commas), not "invalid".
 */
export function parseLikeJson(bytes: Buffer): Parsed {
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let bare: string;
  try {
    bare = stripComments(text);
  } catch {
    return { ok: false };
  }
  if (bare.trim() === '') return { ok: true, doc: undefined };
  try {
    return { ok: true, doc: JSON.parse(bare) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The `mcpServers` entries of an accepted document. */
function serversOf(doc: unknown): Array<[string, Record<string, unknown>]> {
  if (!isObject(doc) || !isObject(doc.mcpServers)) return [];
  return Object.entries(doc.mcpServers).map(([name, c]) => [
    name,
    // Rule 2 is api's (unit-tested there); what is checked here is what the informer makes.
    normalizeServerConfig(c as McpServerConfig) as Record<string, unknown>,
  ]);
}

const LAYERS: ReadonlyArray<Exclude<Target, 'trust'>> = ['user', 'project', 'workspace', 'cli'];

/** name → { scope, config } after the precedence merge (rule 1: replace, never merge). */
export function expectedServers(docs: Record<Target, unknown>): string {
  const out = new Map<string, { scope: string; config: Record<string, unknown> }>();
  for (const scope of LAYERS)
    for (const [name, config] of serversOf(docs[scope])) out.set(name, { scope, config });
  return canonicalJson([...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The same rendering of what a store holds, for comparison with expectedServers(). */
export function actualServers(
  servers: Readonly<Record<string, { scope: string; config: unknown }>>,
): string {
  return canonicalJson(
    Object.entries(servers)
      .map(([name, s]) => [name, { scope: s.scope, config: s.config }] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

/** The merged gating lists: the user's and the workspace's joined (trusted folder), as Qwen's. */
export function expectedLists(docs: Record<Target, unknown>): string {
  const mcpOf = (doc: unknown): Record<string, unknown> =>
    isObject(doc) && isObject(doc.mcp) ? doc.mcp : {};
  const ws = mcpOf(docs.workspace);
  const user = mcpOf(docs.user);
  const items = (v: unknown): readonly unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
  const joined = (a: unknown, b: unknown): unknown[] | undefined =>
    a === undefined && b === undefined ? undefined : [...new Set([...items(a), ...items(b)])];
  return canonicalJson({
    allowed: joined(user.allowed, ws.allowed),
    excluded: joined(user.excluded, ws.excluded),
  });
}

const isString = (v: unknown): v is string => typeof v === 'string';
const stringArray = (v: unknown): boolean =>
  v === undefined || (Array.isArray(v) && v.every(isString));
const stringRecord = (v: unknown): boolean =>
  v === undefined || (isObject(v) && Object.values(v).every(isString));
const optional = (v: unknown, ok: (x: unknown) => boolean): boolean => v === undefined || ok(v);

/** What is wrong with a server that made it into a desired set; undefined when nothing. */
export function serverProblem(name: string, config: unknown): string | undefined {
  if (name.trim() === '') return 'a server with an empty name';
  if (!isObject(config)) return `${name}: config is not an object`;
  const c = config;
  if (!((isString(c.command) && c.command !== '') || isString(c.httpUrl) || isString(c.url)))
    return `${name}: neither command nor url`;
  if (c.type !== undefined) return `${name}: "type" left after normalisation`;
  if (!stringArray(c.args) || !stringArray(c.includeTools) || !stringArray(c.excludeTools))
    return `${name}: a list that is not an array of strings`;
  if (!stringRecord(c.env) || !stringRecord(c.headers))
    return `${name}: env/headers not all strings`;
  if (!optional(c.cwd, (x) => isString(x) && x !== '')) return `${name}: bad cwd`;
  if (!optional(c.timeout, (x) => Number.isInteger(x) && (x as number) > 0))
    return `${name}: bad timeout`;
  for (const flag of ['trust', 'disabled', 'shared'])
    if (!optional(c[flag], (x) => typeof x === 'boolean'))
      return `${name}: ${flag} is not a boolean`;
  if (!optional(c.updateStrategy, (x) => x === 'RollingUpdate' || x === 'Recreate'))
    return `${name}: bad updateStrategy`;
  return undefined;
}
