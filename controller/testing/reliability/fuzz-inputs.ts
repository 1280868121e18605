/**
 * Inputs of the config fuzz test: which file to hit, and what to write into it.
 *
 * Four kinds of content, from most random to most plausible:
 * - any JSON value as the whole document;
 * - the shape of a settings file with any JSON value where a server, a server field, a gating
 *   list or the folder-trust switch belongs (so validation is reached, not only parsing);
 * - documents that are valid by construction, with awkward names (`__proto__`, `constructor`);
 * - random byte mutations (flip, insert, delete, duplicate, truncate) of a valid JSONC file.
 */
import fc from 'fast-check';

export const TARGETS = ['user', 'workspace', 'project', 'cli', 'trust'] as const;
export type Target = (typeof TARGETS)[number];

/** Names that have broken JSON-object code before: prototype keys, blanks, separators. */
const AWKWARD_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a::b', ' ', ''];
const serverName = fc.oneof(
  fc.constantFrom('fs', 'u1', 'p1', 'w1', 'c1', ...AWKWARD_NAMES),
  fc.string({ maxLength: 8 }),
);

/** Builds an object with own properties even for keys like `__proto__` (JSON keeps them). */
function objectOf(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

const anyJson = fc.jsonValue({ maxDepth: 3 });

const SERVER_FIELDS = [
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'httpUrl',
  'type',
  'headers',
  'timeout',
  'trust',
  'includeTools',
  'excludeTools',
  'disabled',
  'updateStrategy',
  'unknownField',
] as const;

/** A server entry: mostly plausible fields, each possibly replaced by any JSON value. */
const roughServer: fc.Arbitrary<unknown> = fc.oneof(
  anyJson,
  fc
    .array(fc.tuple(fc.constantFrom(...SERVER_FIELDS), anyJson), { maxLength: 4 })
    .map((fields) => objectOf([['command', 'node'], ...fields])),
);

const nameList = fc.array(serverName, { maxLength: 3 });

/** A settings-shaped document with arbitrary values in the places validation looks at. */
export const structuredDoc: fc.Arbitrary<unknown> = fc
  .record(
    {
      mcpServers: fc.oneof(
        anyJson,
        fc
          .array(fc.tuple(serverName, roughServer), { maxLength: 3 })
          .map((entries) => objectOf(entries)),
      ),
      mcp: fc.oneof(
        anyJson,
        fc.record(
          { allowed: fc.oneof(nameList, anyJson), excluded: fc.oneof(nameList, anyJson) },
          { requiredKeys: [] },
        ),
      ),
      security: fc.record({ folderTrust: fc.record({ enabled: fc.oneof(fc.boolean(), anyJson) }) }),
      ui: fc.record({ theme: fc.string({ maxLength: 5 }) }),
    },
    { requiredKeys: [] },
  )
  .map((doc) => doc as unknown);

const validServer: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      command: fc.constantFrom('node', 'npx', '/usr/bin/env'),
      args: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
      env: fc.dictionary(fc.constantFrom('A', 'B', 'PATH'), fc.string({ maxLength: 4 })),
      description: fc.string({ maxLength: 6 }),
      excludeTools: fc.array(fc.constantFrom('t1', 't2(x)'), { maxLength: 2 }),
      updateStrategy: fc.constantFrom('RollingUpdate', 'Recreate'),
    },
    { requiredKeys: ['command'] },
  ),
  fc.record({ type: fc.constant('stdio'), command: fc.constant('node') }),
  fc.record({ type: fc.constant('http'), url: fc.constant('http://127.0.0.1:9/mcp') }),
  fc.record({ httpUrl: fc.constant('https://example.test/mcp'), headers: fc.constant({ X: '1' }) }),
  fc.record({ url: fc.constant('http://127.0.0.1:9/sse') }),
);

/** A document every validator must accept. */
export const validDoc: fc.Arbitrary<unknown> = fc
  .record(
    {
      mcpServers: fc
        .array(
          fc.tuple(
            serverName.filter((n) => n.trim() !== ''),
            validServer,
          ),
          { maxLength: 4 },
        )
        .map((entries) => objectOf(entries)),
      mcp: fc.record(
        {
          allowed: fc.array(serverName, { maxLength: 3 }),
          excluded: fc.array(serverName, { maxLength: 3 }),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  )
  .map((doc) => doc as unknown);

export type Mutation =
  | { readonly op: 'flip'; readonly at: number; readonly bit: number }
  | { readonly op: 'insert'; readonly at: number; readonly byte: number }
  | { readonly op: 'delete'; readonly at: number; readonly length: number }
  | { readonly op: 'duplicate'; readonly at: number; readonly length: number }
  | { readonly op: 'truncate'; readonly at: number };

/** Bytes that matter to JSON(C) syntax are likelier than arbitrary ones. */
const SYNTAX_BYTES = [...'{}[]",:/*\\\n \t-0e.'].map((c) => c.charCodeAt(0));

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.nat(7) }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    byte: fc.oneof(fc.constantFrom(...SYNTAX_BYTES), fc.nat(255)),
  }),
  fc.record({
    op: fc.constant('delete' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 12 }),
  }),
  fc.record({
    op: fc.constant('duplicate' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 24 }),
  }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
);

/** Applies mutations in order; positions wrap around the current length. */
export function mutate(base: Buffer, mutations: readonly Mutation[]): Buffer {
  let b = Buffer.from(base);
  for (const m of mutations) {
    const at = b.length === 0 ? 0 : m.at % (b.length + 1);
    switch (m.op) {
      case 'flip':
        if (b.length > 0) {
          const i = at % b.length;
          b[i] = (b[i] ?? 0) ^ (1 << m.bit);
        }
        break;
      case 'insert':
        b = Buffer.concat([b.subarray(0, at), Buffer.from([m.byte]), b.subarray(at)]);
        break;
      case 'delete':
        b = Buffer.concat([b.subarray(0, at), b.subarray(at + m.length)]);
        break;
      case 'duplicate':
        b = Buffer.concat([b.subarray(0, at + m.length), b.subarray(at)]);
        break;
      case 'truncate':
        b = b.subarray(0, at);
        break;
    }
  }
  return b;
}

/** Valid JSONC bases for byte mutation, one per kind of file. */
export function baseText(target: Target, workspace: string): string {
  if (target === 'trust')
    return `// folders\n{\n  ${JSON.stringify(workspace)}: "TRUST_FOLDER", // mine\n  "/tmp/other": "DO_NOT_TRUST",\n}\n`;
  if (target === 'project' || target === 'cli')
    return `{\n  // Claude shape\n  "mcpServers": {\n    "p1": { "type": "stdio", "command": "node", "args": ["s.js", "--x"] },\n    "remote": { "type": "http", "url": "http://127.0.0.1:9/mcp", "headers": { "A": "b" } },\n  },\n}\n`;
  return `{\n  /* servers */\n  "mcpServers": {\n    "u1": { "command": "node", "args": ["a.js"], "env": { "K": "v" }, "timeout": 5000 },\n    "w1": { "httpUrl": "https://example.test/mcp", "trust": true, "excludeTools": ["x"] },\n  },\n  "mcp": { "allowed": ["u1", "w1"], "excluded": [] },\n  "security": { "folderTrust": { "enabled": false } },\n  "ui": { "theme": "dark" }, // trailing\n}\n`;
}

export type FuzzContent =
  | { readonly kind: 'json'; readonly doc: unknown }
  | { readonly kind: 'structured'; readonly doc: unknown }
  | { readonly kind: 'valid'; readonly doc: unknown }
  | { readonly kind: 'bytes'; readonly mutations: readonly Mutation[] };

export interface FuzzCase {
  readonly target: Target;
  readonly content: FuzzContent;
}

export const fuzzCaseArb: fc.Arbitrary<FuzzCase> = fc.record({
  target: fc.constantFrom(...TARGETS),
  content: fc.oneof(
    fc.record({ kind: fc.constant('json' as const), doc: anyJson }),
    fc.record({ kind: fc.constant('structured' as const), doc: structuredDoc }),
    fc.record({ kind: fc.constant('valid' as const), doc: validDoc }),
    fc.record({
      kind: fc.constant('bytes' as const),
      mutations: fc.array(mutationArb, { minLength: 1, maxLength: 5 }),
    }),
  ),
});

/** The bytes a case writes. */
export function contentBytes(c: FuzzCase, workspace: string): Buffer {
  if (c.content.kind === 'bytes')
    return mutate(Buffer.from(baseText(c.target, workspace)), c.content.mutations);
  return Buffer.from(JSON.stringify(c.content.doc) ?? '');
}
