/**
 * The SDK's MCP `Server` with the gateway's one error mapping for bad params: a request whose
 * params its method's schema refuses is answered `-32602` (invalid params) with one readable
 * line naming the field and what was expected (`resources/read: params.uri must be a string,
 * not a number`), where the SDK answers `-32603` with the validator's issues as a JSON dump.
 *
 * Guarantees:
 * - It holds for every typed handler, the SDK's own (`initialize`, `logging/setLevel`) and the
 *   gateway's, because it sits in `setRequestHandler` itself: the SDK is given a schema that
 *   only names the method, and the method's real schema is checked here. A handler runs only
 *   with params its schema accepted (what it is given is that schema's output, as before).
 * - `tools/call` is left to the SDK's Server, which checks it itself (and the gateway serves it
 *   raw: tools.ts).
 * - The message is one line; it names fields and types, never a value the agent sent (only the
 *   allowed values of an enum, which come from the schema).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  getLiteralValue,
  getObjectShape,
  safeParse,
  type AnyObjectSchema,
  type SchemaOutput,
} from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode,
  type Request,
  type Notification,
  type Result,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { typeName } from './agent-message.js';

type Handler<T extends AnyObjectSchema> = (
  request: SchemaOutput<T>,
  extra: RequestHandlerExtra<ServerRequest | Request, ServerNotification | Notification>,
) => ServerResult | Result | Promise<ServerResult | Result>;

/**
 * The -32602 answer. Not an McpError: its message would carry an "MCP error -32602:" prefix,
 * which the agent's SDK adds again.
 */
export class InvalidParamsError extends Error {
  readonly code = ErrorCode.InvalidParams;
  override name = 'InvalidParamsError';
}

export class CheckedServer extends Server {
  // Called by Server's constructor too (initialize, logging/setLevel): it uses no field of ours.
  override setRequestHandler<T extends AnyObjectSchema>(schema: T, handler: Handler<T>): void {
    const named = getObjectShape(schema)?.method;
    const method = named === undefined ? undefined : getLiteralValue(named);
    if (typeof method !== 'string' || method === 'tools/call') {
      super.setRequestHandler(schema, handler);
      return;
    }
    // The SDK parses with what it is given (a failure is its -32603 dump): give it only the
    // method, and parse with the real schema here.
    super.setRequestHandler(
      z.object({ method: z.literal(method) }).passthrough(),
      (request, extra) => {
        const parsed = safeParse(schema, request);
        if (!parsed.success)
          throw new InvalidParamsError(paramsProblem(method, request, issuesOf(parsed.error)));
        return handler(parsed.data, extra);
      },
    );
  }
}

/** One issue of a zod error (v3 or v4), as far as a message needs it. */
export interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly expected?: unknown;
  /** v4 invalid_value: the allowed values. */
  readonly values?: readonly unknown[];
  /** v3 invalid_enum_value: the allowed values. */
  readonly options?: readonly unknown[];
  /** v4 invalid_union: each branch's issues (paths relative to the union). */
  readonly errors?: readonly (readonly Issue[])[];
  /** unrecognized_keys */
  readonly keys?: readonly string[];
}

function issuesOf(error: unknown): Issue[] {
  const issues = (error as { issues?: unknown } | undefined)?.issues;
  return Array.isArray(issues) ? (issues as Issue[]) : [];
}

/** At most this many problems are named; the rest are counted. */
const MAX_NAMED = 3;

/** `method: problem; problem (and N more)`: one line about what is wrong with the params. */
export function paramsProblem(method: string, request: unknown, issues: readonly Issue[]): string {
  if (issues.length === 0) return `${method}: params are not valid`;
  const named = issues.slice(0, MAX_NAMED).map((i) => describeIssue(i, [], request));
  const more = issues.length - named.length;
  return `${method}: ${named.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

const ARTICLE: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  int: 'an integer',
  integer: 'an integer',
  undefined: 'nothing',
};

function expectedText(expected: unknown): string {
  const name = String(expected);
  return ARTICLE[name] ?? `a ${name}`;
}

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path)
    out +=
      typeof part === 'number'
        ? `[${part}]`
        : `${out === '' ? '' : '.'}${typeof part === 'symbol' ? String(part) : part}`;
  return out === '' ? 'the request' : out;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const part of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<PropertyKey, unknown>)[part];
  }
  return at;
}

const listOf = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

function describeIssue(issue: Issue, base: readonly PropertyKey[], request: unknown): string {
  const path = [...base, ...issue.path];
  const where = pathText(path);
  switch (issue.code) {
    case 'invalid_type': {
      const got = valueAt(request, path);
      const expected = expectedText(issue.expected);
      return got === undefined
        ? `${where} is missing (${expected} is expected)`
        : `${where} must be ${expected}, not ${typeName(got)}`;
    }
    case 'invalid_value':
    case 'invalid_enum_value':
    case 'invalid_literal': {
      const allowed = issue.values ?? issue.options ?? [issue.expected];
      return allowed.length === 1
        ? `${where} must be ${listOf(allowed)}`
        : `${where} must be one of ${listOf(allowed)}`;
    }
    case 'unrecognized_keys':
      return `${where} has unknown fields ${listOf(issue.keys ?? [])}`;
    case 'invalid_union':
      return describeUnion(issue, path, request);
    default:
      return `${where}: ${issue.message.replace(/\s+/g, ' ')}`;
  }
}

/**
 * A value that fits none of a union's forms: the form whose literal it carries (its `type`) is
 * the one the agent meant, so that form's problem is told; when it carries none of them, the
 * literals it may carry.
 */
function describeUnion(issue: Issue, path: readonly PropertyKey[], request: unknown): string {
  const branches = issue.errors ?? [];
  const literalMiss = (b: readonly Issue[]) =>
    b.find((i) => i.code === 'invalid_value' || i.code === 'invalid_literal');
  const meant = branches.filter((b) => b.length > 0 && literalMiss(b) === undefined);
  if (meant.length === 1) return describeIssue(meant[0][0], path, request);
  const misses = branches.map(literalMiss);
  const first = misses[0];
  if (
    first !== undefined &&
    misses.every((m) => m !== undefined && pathText(m.path) === pathText(first.path))
  ) {
    const allowed = misses.flatMap(
      (m) => m?.values ?? (m?.expected === undefined ? [] : [m.expected]),
    );
    return `${pathText([...path, ...first.path])} must be one of ${listOf(allowed)}`;
  }
  return `${pathText(path)} fits none of the forms it may take`;
}
