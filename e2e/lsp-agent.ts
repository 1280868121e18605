/**
 * Helpers for the language-server e2e tests (issue #24): `.lsp.json` entries of the real
 * servers installed as dev dependencies and of the scriptable fake, an agent (the SDK's Client
 * through the built `mcpctl serve`) that calls the `lsp_*` tools, and `get languageservers`.
 *
 * Guarantees:
 * - Every entry's argv mentions the test's temp dir (an argument the server ignores, or its
 *   main module through a link in the temp dir), so a process that started can be found (`processesMentioning`) and
 *   cleanup ends whatever a test left behind.
 * - `call` returns the tool's `structuredContent`, and fails with the tool's text when the tool
 *   answered `isError`; `callRaw` returns the whole result.
 * - An agent given `elicit` declares elicitation and answers every question with it (approval
 *   prompts); without it, it declares nothing and is never asked.
 */
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Condition, LanguageServer, LanguageServerList } from '../api/index.js';
import { untilObjects, type TestEnv } from './harness.js';

const requireHere = createRequire(import.meta.url);
const moduleDir = (pkg: string): string => path.dirname(requireHere.resolve(`${pkg}/package.json`));

/** The seven tools the gateway offers while a language server is Ready. */
export const LSP_TOOLS = [
  'lsp_definition',
  'lsp_diagnostics',
  'lsp_document_symbols',
  'lsp_hover',
  'lsp_references',
  'lsp_rename',
  'lsp_workspace_symbols',
] as const;

/** An `.lsp.json` entry. */
export interface LspEntry {
  command: string;
  args: string[];
  extensionToLanguage: Record<string, string>;
  initializationOptions?: unknown;
  settings?: unknown;
  [field: string]: unknown;
}

/**
 * `file` through a link inside the temp dir, so the process's argv mentions it (a server that
 * refuses unknown arguments cannot take a marker; node runs a linked main module from its real
 * place, so its imports resolve as usual).
 */
function linked(env: TestEnv, file: string): string {
  const link = path.join(env.root, 'bin', path.basename(file));
  mkdirSync(path.dirname(link), { recursive: true });
  if (!existsSync(link)) symlinkSync(file, link);
  return link;
}

/** typescript-language-server 5.3 on TypeScript 6.0, configured as the README's example. */
export function typescriptEntry(env: TestEnv, more: Partial<LspEntry> = {}): LspEntry {
  return {
    command: process.execPath,
    args: [
      linked(env, path.join(moduleDir('typescript-language-server'), 'lib', 'cli.mjs')),
      '--stdio',
    ],
    extensionToLanguage: { '.ts': 'typescript', '.tsx': 'typescriptreact' },
    initializationOptions: { tsserver: { path: path.join(moduleDir('typescript-6'), 'lib') } },
    ...more,
  };
}

export function bashEntry(env: TestEnv, more: Partial<LspEntry> = {}): LspEntry {
  return {
    command: process.execPath,
    args: [
      path.join(moduleDir('bash-language-server'), 'out', 'cli.js'),
      'start',
      `--mcpctl-test=${env.root}`,
    ],
    extensionToLanguage: { '.sh': 'shellscript' },
    ...more,
  };
}

/** The scriptable fake of lsp/testing (built beside this file's folder). */
export function fakeEntry(env: TestEnv, more: Partial<LspEntry> = {}): LspEntry {
  return {
    command: process.execPath,
    args: [
      fileURLToPath(new URL('../lsp/testing/fake-server.js', import.meta.url)),
      'normal',
      `--mcpctl-test=${env.root}`,
    ],
    extensionToLanguage: { '.txt': 'plaintext' },
    ...more,
  };
}

export function lspCondition(s: LanguageServer | undefined, type: string): Condition | undefined {
  return s?.status.conditions.find((c) => c.type === type);
}

export function lspReady(s: LanguageServer | undefined): boolean {
  return lspCondition(s, 'Ready')?.status === 'True';
}

/** `get languageservers -o json` (the session `args` select), by name. */
export async function languageServers(
  env: TestEnv,
  args: readonly string[] = [],
): Promise<Map<string, LanguageServer>> {
  const list = await env.json<LanguageServerList>([
    'get',
    'languageservers',
    '-o',
    'json',
    ...args,
  ]);
  return new Map(list.items.map((s) => [s.metadata.name, s]));
}

/** Polls `get languageservers` until `check` accepts; a timeout says what was seen last. */
export function untilLanguageServers(
  env: TestEnv,
  what: string,
  check: (servers: Map<string, LanguageServer>) => boolean,
  opts: { args?: readonly string[]; timeoutMs?: number } = {},
): Promise<Map<string, LanguageServer>> {
  return untilObjects(what, () => languageServers(env, opts.args), check, {
    label: 'language servers',
    timeoutMs: opts.timeoutMs ?? 60_000,
  });
}

export interface LspAgent {
  readonly client: Client;
  /** tools/list_changed notifications received so far. */
  listChanged(): number;
  stderr(): string;
  toolNames(): Promise<string[]>;
  callRaw(tool: string, args: Record<string, unknown>): Promise<CallToolResult>;
  call<T>(tool: string, args: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

/** An agent through `mcpctl serve --workspace <workspace> ...args`. */
export async function lspAgent(
  env: TestEnv,
  opts: {
    workspace?: string;
    args?: readonly string[];
    /** The agent's environment beyond the test's (PATH, variables an entry expands). */
    extraEnv?: Record<string, string>;
    /** How the agent's user answers a question (elicitation); absent: none is declared. */
    elicit?: (message: string) => ElicitResult;
  } = {},
): Promise<LspAgent> {
  const { transport, stderr } = env.serveTransport(opts);
  const { elicit } = opts;
  const client = new Client(
    { name: 'lsp-e2e-agent', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: {} } : {} },
  );
  if (elicit)
    client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changed += 1;
  });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`serve did not connect: ${String(err)}\n${stderr()}`);
  }
  env.trackPid(transport.pid ?? undefined);
  const callRaw = async (tool: string, args: Record<string, unknown>) =>
    (await client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: 60_000,
    })) as CallToolResult;
  return {
    client,
    listChanged: () => changed,
    stderr,
    toolNames: async () => (await client.listTools()).tools.map((t) => t.name).sort(),
    callRaw,
    call: async <T>(tool: string, args: Record<string, unknown>): Promise<T> => {
      const result = await callRaw(tool, args);
      if (result.isError) {
        const text = result.content.map((c) => (c.type === 'text' ? c.text : c.type)).join('\n');
        throw new Error(`${tool} answered isError: ${text}`);
      }
      return result.structuredContent as T;
    },
    close: () => client.close(),
  };
}

/**
 * Every content item of an answer, one a line: a text item's text, any other its type (so a
 * check on an `isError` answer, or one that a secret is absent, sees all of it; testing/'s
 * `textOf` reads only the first item).
 */
export function allTextOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : c.type)).join('\n');
}
