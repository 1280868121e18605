/**
 * The approvals file format: its content as data, parsed, validated and serialised; no I/O
 * (file-io.ts reads and writes the file).
 *
 * Shape (DESIGN §4 rule 6):
 * `{ [projectRootRealpath]: { [serverName]: { "hash": "<approval hash>", "status": "approved"|"rejected" } } }`
 *
 * Guarantees:
 * - Parsing tolerates comments and trailing commas (people edit this file by hand; Qwen's own
 *   reader is lenient too). Comments are not kept when the store rewrites the file.
 * - Any string is a safe project or server name: the model is a Map of Maps and the tree is
 *   walked node by node, never assigned into plain objects, so `__proto__` or `constructor`
 *   are ordinary keys that survive a read-write round trip.
 * - Text that is not JSON(C), or whose top is not an object, is reported as a problem with its
 *   location, never half-read: the caller decides what to do with a corrupt file (the store
 *   moves it aside rather than overwrite decisions it could not understand).
 * - One malformed entry costs only itself: a record without the shape above, or a project
 *   whose value is not an object, is listed in `invalid` with its location and raw value;
 *   every other decision is read. Its server has no decision (pending, the safe side).
 * - Malformed entries survive a read-write round trip as they were read; the one a new
 *   decision replaces is handed back by `withDecision`, never dropped without a word.
 * - Extra fields inside a valid record are ignored (and not written back).
 * - Decision maps are treated as immutable; `withDecision` returns a copy.
 */
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

export type ApprovalStatus = 'approved' | 'rejected';

export interface ApprovalRecord {
  /** `approvalHashOf(config)` of the config the decision was made for. */
  readonly hash: string;
  readonly status: ApprovalStatus;
}

/** Project key → server name → record. */
export type ApprovalDecisions = ReadonlyMap<string, ReadonlyMap<string, ApprovalRecord>>;

/**
 * An entry of the file that does not have the documented shape: one server's record, or a
 * whole project's value when that is not an object. It is ignored for gating (its server is
 * pending, the safe side) but kept, as it was, in every write (DESIGN: bad input changes
 * nothing, and nothing the user wrote is silently dropped).
 */
export interface InvalidEntry {
  readonly projectKey: string;
  /** The server the record is for; absent when the project's whole value is malformed. */
  readonly name?: string;
  /** Where and what, e.g. `"/ws"."fs".status: expected "approved" or "rejected", got "maybe"`. */
  readonly problem: string;
  /** The value as read (objects with a null prototype), written back unchanged. */
  readonly raw: unknown;
}

/** Everything the file holds: the valid decisions and the malformed entries beside them. */
export interface ApprovalsContent {
  readonly decisions: ApprovalDecisions;
  readonly invalid: readonly InvalidEntry[];
}

export type ParsedDecisions =
  | {
      readonly ok: true;
      readonly decisions: ApprovalDecisions;
      readonly invalid: readonly InvalidEntry[];
    }
  | { readonly ok: false; readonly problem: string };

export function emptyDecisions(): ApprovalDecisions {
  return new Map();
}

export function emptyContent(): ApprovalsContent {
  return { decisions: emptyDecisions(), invalid: [] };
}
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

function describeNode(node: Node): string {
  return node.type === 'object' || node.type === 'array' ? `an ${node.type}` : `a ${node.type}`;
}

/** The [key, value] pairs of an object node, in file order. */
function propertiesOf(node: Node): Array<[string, Node | undefined]> {
  return (node.children ?? []).map((property) => {
    const [key, value] = property.children ?? [];
    return [String(key?.value), value];
  });
}

function stringProperty(node: Node, name: string): unknown {
  const found = propertiesOf(node).find(([key]) => key === name);
  const value = found?.[1];
  return value === undefined || value.type === 'object' || value.type === 'array'
    ? undefined
    : (value.value as unknown);
}

function parseRecord(node: Node | undefined, where: string): ApprovalRecord | string {
  if (node === undefined || node.type !== 'object') {
    return `${where}: expected an object { "hash", "status" }, got ${node ? describeNode(node) : 'nothing'}`;
  }
  const hash = stringProperty(node, 'hash');
  const status = stringProperty(node, 'status');
  if (typeof hash !== 'string' || hash === '') {
    return `${where}.hash: expected a non-empty string, got ${JSON.stringify(hash) ?? 'nothing'}`;
  }
  if (status !== 'approved' && status !== 'rejected') {
    return `${where}.status: expected "approved" or "rejected", got ${JSON.stringify(status) ?? 'nothing'}`;
  }
  return { hash, status };
}

export function parseDecisions(text: string): ParsedDecisions {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const errors: ParseError[] = [];
  const tree = parseTree(body, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: true,
  });
  const first = errors[0];
  if (first) {
    return {
      ok: false,
      problem: `${printParseErrorCode(first.error)} at ${lineAndColumn(body, first.offset)}`,
    };
  }
  // Empty or comment-only content: nothing decided yet, which is not corruption.
  if (tree === undefined) return { ok: true, decisions: emptyDecisions(), invalid: [] };
  if (tree.type !== 'object') {
    return { ok: false, problem: `expected an object at the top, got ${describeNode(tree)}` };
  }
  // JSON semantics: a key given twice means its last value, valid or not.
  const decisions = new Map<string, Map<string, ApprovalRecord>>();
  const invalid = new Map<string, InvalidEntry | Map<string, InvalidEntry>>();
  for (const [projectKey, projectNode] of propertiesOf(tree)) {
    const where = JSON.stringify(projectKey);
    decisions.delete(projectKey);
    invalid.delete(projectKey);
    if (projectNode === undefined || projectNode.type !== 'object') {
      invalid.set(projectKey, {
        projectKey,
        problem: `${where}: expected an object of server decisions, got ${projectNode ? describeNode(projectNode) : 'nothing'}`,
        raw: projectNode === undefined ? null : rawValueOf(projectNode),
      });
      continue;
    }
    const servers = new Map<string, ApprovalRecord>();
    const bad = new Map<string, InvalidEntry>();
    for (const [name, recordNode] of propertiesOf(projectNode)) {
      const record = parseRecord(recordNode, `${where}.${JSON.stringify(name)}`);
      servers.delete(name);
      bad.delete(name);
      if (typeof record === 'string') {
        const raw = recordNode === undefined ? null : rawValueOf(recordNode);
        bad.set(name, { projectKey, name, problem: record, raw });
      } else servers.set(name, record);
    }
    decisions.set(projectKey, servers);
    if (bad.size > 0) invalid.set(projectKey, bad);
  }
  const entries = [...invalid.values()].flatMap((v) => (v instanceof Map ? [...v.values()] : [v]));
  return { ok: true, decisions, invalid: entries };
}

/** A node's value as plain data; objects get a null prototype, so any key is just a key. */
function rawValueOf(node: Node): unknown {
  if (node.type === 'array') return (node.children ?? []).map(rawValueOf);
  if (node.type === 'object') {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [key, value] of propertiesOf(node))
      define(out, key, value === undefined ? null : rawValueOf(value));
    return out;
  }
  return node.value as unknown;
}

/** Own, enumerable property on a null-prototype object: `__proto__` is stored, not obeyed. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * The file's text: every decision, and every malformed entry as it was read (an entry whose
 * place a decision took is not written; `withDecision` hands it back as displaced).
 */
export function serializeDecisions({ decisions, invalid }: ApprovalsContent): string {
  const top = Object.create(null) as Record<string, unknown>;
  for (const [projectKey, servers] of decisions) {
    const project = Object.create(null) as Record<string, unknown>;
    for (const [name, record] of servers) {
      define(project, name, { hash: record.hash, status: record.status });
    }
    define(top, projectKey, project);
  }
  for (const entry of invalid) {
    const project = top[entry.projectKey];
    if (entry.name === undefined) {
      if (project === undefined) define(top, entry.projectKey, entry.raw);
      continue;
    }
    if (project === undefined) {
      const created = Object.create(null) as Record<string, unknown>;
      define(top, entry.projectKey, created);
      define(created, entry.name, entry.raw);
    } else if (
      typeof project === 'object' &&
      project !== null &&
      !Object.hasOwn(project, entry.name)
    ) {
      define(project as Record<string, unknown>, entry.name, entry.raw);
    }
  }
  return `${JSON.stringify(top, null, 2)}\n`;
}

/**
 * A copy of `content` with one record set; everything else is carried over untouched. A
 * malformed entry in the record's place (that server's record, or its project's whole value)
 * is taken out and returned as `displaced`, for the caller to keep somewhere and say so.
 */
export function withDecision(
  content: ApprovalsContent,
  projectKey: string,
  name: string,
  record: ApprovalRecord,
): { readonly content: ApprovalsContent; readonly displaced: readonly InvalidEntry[] } {
  const next = new Map(content.decisions);
  const servers = new Map(content.decisions.get(projectKey) ?? []);
  servers.set(name, record);
  next.set(projectKey, servers);
  const inTheWay = (e: InvalidEntry) =>
    e.projectKey === projectKey && (e.name === undefined || e.name === name);
  return {
    content: { decisions: next, invalid: content.invalid.filter((e) => !inTheWay(e)) },
    displaced: content.invalid.filter(inTheWay),
  };
}
