/**
 * The content of the approvals file as data: parsing, validation and serialisation, no I/O.
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
 * - Anything that does not have the shape above is reported as a problem with its location,
 *   never half-read: the caller decides what to do with a corrupt file (the store moves it
 *   aside rather than overwrite decisions it could not understand).
 * - Extra fields inside a record are ignored (and not written back).
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

export type ParsedDecisions =
  | { readonly ok: true; readonly decisions: ApprovalDecisions }
  | { readonly ok: false; readonly problem: string };

export function emptyDecisions(): ApprovalDecisions {
  return new Map();
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
  if (tree === undefined) return { ok: true, decisions: emptyDecisions() };
  if (tree.type !== 'object') {
    return { ok: false, problem: `expected an object at the top, got ${describeNode(tree)}` };
  }
  const decisions = new Map<string, Map<string, ApprovalRecord>>();
  for (const [projectKey, projectNode] of propertiesOf(tree)) {
    const where = JSON.stringify(projectKey);
    if (projectNode === undefined || projectNode.type !== 'object') {
      return {
        ok: false,
        problem: `${where}: expected an object of server decisions, got ${projectNode ? describeNode(projectNode) : 'nothing'}`,
      };
    }
    const servers = new Map<string, ApprovalRecord>();
    for (const [name, recordNode] of propertiesOf(projectNode)) {
      const record = parseRecord(recordNode, `${where}.${JSON.stringify(name)}`);
      if (typeof record === 'string') return { ok: false, problem: record };
      servers.set(name, record);
    }
    decisions.set(projectKey, servers);
  }
  return { ok: true, decisions };
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

export function serializeDecisions(decisions: ApprovalDecisions): string {
  const top = Object.create(null) as Record<string, unknown>;
  for (const [projectKey, servers] of decisions) {
    const project = Object.create(null) as Record<string, unknown>;
    for (const [name, record] of servers) {
      define(project, name, { hash: record.hash, status: record.status });
    }
    define(top, projectKey, project);
  }
  return `${JSON.stringify(top, null, 2)}\n`;
}

/** A copy of `decisions` with one record set; everything else is carried over untouched. */
export function withDecision(
  decisions: ApprovalDecisions,
  projectKey: string,
  name: string,
  record: ApprovalRecord,
): ApprovalDecisions {
  const next = new Map(decisions);
  const servers = new Map(decisions.get(projectKey) ?? []);
  servers.set(name, record);
  next.set(projectKey, servers);
  return next;
}
