/**
 * The language servers' code intelligence as the gateway's own tools (`lsp_definition`,
 * `lsp_references`, `lsp_hover`, `lsp_diagnostics`, `lsp_document_symbols`,
 * `lsp_workspace_symbols`, `lsp_rename`), asked of the session (SessionPort.ask), which routes
 * each to its Ready language server (controller/lsp-questions.ts): the gateway holds no
 * connection.
 *
 * Guarantees:
 * - Listed only while at least one configured language server is Ready (and not at all with
 *   `listed: false`, for `--meta-tools=only`, whose listing never changes); a call by name is
 *   answered either way. Their names hold no `__` and do not start with `hint_`, so they never
 *   collide with a forwarded tool (tool-names.ts).
 * - An answer is the session's plain answer (lsp/requests.ts's) as `structuredContent`
 *   (matching the tool's `outputSchema`) and the same as JSON text. Every failure is an
 *   `isError` result the model reads, never a protocol error or a crash: a bad argument
 *   (lsp-arguments.ts), a file no server handles or whose server is not Ready, the server's own
 *   error or timeout (the session's refusals), diagnostics not yet computed for the file as it
 *   is now.
 * - `lsp_workspace_symbols` asks every Ready server at once, merged in server order, each
 *   symbol once (controller/lsp-questions.ts); it fails only when every server did, and
 *   otherwise names the servers that did not answer (`notAnswered`).
 * - `lsp_rename` previews: mcpctl writes no file.
 * - An answer the server gave while still at work (loading its project) past the wait says so
 *   in `partial` (lsp/requests.ts); `lsp_workspace_symbols` joins its servers' `partial`s.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { LANGUAGE_SERVERS } from '../api/index.js';
import {
  LspError,
  MAX_ANSWER_ITEMS,
  printable,
  type LspServerView,
} from '../controller/lsp-questions.js';
import { messageOf } from './forward.js';
import {
  isLspToolName,
  LSP_DEFINITION,
  LSP_DIAGNOSTICS,
  LSP_DOCUMENT_SYMBOLS,
  LSP_HOVER,
  LSP_REFERENCES,
  LSP_RENAME,
  LSP_WORKSPACE_SYMBOLS,
  MAX_NAME_CHARS,
  MAX_QUERY_CHARS,
  parseLspCall,
  type LspCall,
} from './lsp-arguments.js';
import type { FoundTool, UnavailableServer } from './meta-tools.js';
import type { SessionPort } from './session-port.js';
import { errorResult, type OwnTools } from './tools.js';

type Schema = Record<string, unknown>;

const integer = (description: string): Schema => ({ type: 'integer', minimum: 1, description });
const FILE: Schema = {
  type: 'string',
  description: 'the file, relative to the workspace (or absolute inside it), e.g. "src/main.ts"',
};
const POSITION = {
  file: FILE,
  line: integer('1-based line, as an editor shows it'),
  column: integer('1-based column in characters, as an editor shows it'),
};
const SPOT = { line: integer('1-based line'), column: integer('1-based column') };
const RANGE = {
  ...SPOT,
  endLine: integer('1-based end line'),
  endColumn: integer('1-based end column (exclusive)'),
};
const LOCATIONS: Schema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      file: { type: 'string', description: 'relative to the workspace; absolute outside it' },
      ...RANGE,
      text: {
        type: 'string',
        description:
          'the line, trimmed; absent for a file not read (outside the workspace, not a regular file, too large)',
      },
    },
    required: ['file', 'line', 'column', 'endLine', 'endColumn'],
  },
};
const KIND: Schema = { type: 'string', description: 'Class, Function, Method, Variable, …' };
const TRUNCATED: Schema = {
  type: 'object',
  description: `present when the answer was cut to its first ${MAX_ANSWER_ITEMS}: how many there were`,
  properties: { total: { type: 'integer' }, shown: { type: 'integer' } },
  required: ['total', 'shown'],
};
const PARTIAL: Schema = {
  type: 'string',
  description:
    'present when the language server was still loading or indexing when it answered: the answer may be incomplete',
};
/** Said in the descriptions of the tools whose answers are lists. */
const atMost = (counting = ''): string =>
  `At most ${MAX_ANSWER_ITEMS}${counting} are answered, the first in the server's order; "truncated" then says how many there were.`;

function object(properties: Record<string, Schema>, required: string[]): Tool['inputSchema'] {
  return { type: 'object', properties, required };
}

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

/** The seven tools, as listed (the listing adds which files they handle now). */
export const LSP_TOOLS: readonly Tool[] = [
  {
    name: LSP_DEFINITION,
    description: `Go to definition: where the symbol at a position (a use of a function, type, variable…) is declared, from the workspace's language server. Answers each location with its line's text (for a file in the workspace). ${atMost()}`,
    inputSchema: object(POSITION, ['file', 'line', 'column']),
    outputSchema: object({ locations: LOCATIONS, truncated: TRUNCATED, partial: PARTIAL }, [
      'locations',
    ]),
    annotations: READ_ONLY,
  },
  {
    name: LSP_REFERENCES,
    description: `Find all references: every place in the workspace that uses the symbol at a position, with each line's text (for a file in the workspace). The declaration is included unless includeDeclaration is false. ${atMost()}`,
    inputSchema: object(
      {
        ...POSITION,
        includeDeclaration: {
          type: 'boolean',
          description: 'include the declaration itself (default true)',
        },
      },
      ['file', 'line', 'column'],
    ),
    outputSchema: object({ locations: LOCATIONS, truncated: TRUNCATED, partial: PARTIAL }, [
      'locations',
    ]),
    annotations: READ_ONLY,
  },
  {
    name: LSP_HOVER,
    description:
      'Hover: the type signature and documentation of the symbol at a position, as an editor shows them on hover (markdown). Empty when there is nothing there.',
    inputSchema: object(POSITION, ['file', 'line', 'column']),
    outputSchema: object({ contents: { type: 'string' }, partial: PARTIAL }, ['contents']),
    annotations: READ_ONLY,
  },
  {
    name: LSP_DIAGNOSTICS,
    description: `The errors and warnings (type errors, syntax errors, lint) the language server reports for a file as it is on disk now: call it after editing the file. Answers for the file's current content only, never for an older version; if the server is still analysing, it says so. ${atMost()}`,
    inputSchema: object({ file: FILE }, ['file']),
    outputSchema: object(
      {
        file: { type: 'string' },
        state: { type: 'string', enum: ['current'] },
        version: { type: 'integer', description: 'the document version analysed' },
        diagnostics: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              severity: { type: 'string', enum: ['error', 'warning', 'information', 'hint'] },
              ...RANGE,
              message: { type: 'string' },
              source: { type: 'string' },
              code: { type: ['string', 'number'] },
            },
            required: ['severity', 'line', 'column', 'endLine', 'endColumn', 'message'],
          },
        },
        truncated: TRUNCATED,
      },
      ['file', 'diagnostics'],
    ),
    annotations: READ_ONLY,
  },
  {
    name: LSP_DOCUMENT_SYMBOLS,
    description: `Outline of a file: its classes, interfaces, functions, methods, variables… with their kind and position, nested (a class's members are its children). ${atMost(' (counting children)')}`,
    inputSchema: object({ file: FILE }, ['file']),
    outputSchema: object(
      {
        symbols: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              kind: KIND,
              ...SPOT,
              detail: { type: 'string' },
              children: { type: 'array', items: { type: 'object' } },
            },
            required: ['name', 'kind', 'line', 'column'],
          },
        },
        truncated: TRUNCATED,
        partial: PARTIAL,
      },
      ['symbols'],
    ),
    annotations: READ_ONLY,
  },
  {
    name: LSP_WORKSPACE_SYMBOLS,
    description: `Find symbols (classes, functions, types, …) by name across the whole workspace, from every ready language server: where each is declared. The query is matched as the server does (usually fuzzy, by name). ${atMost()}`,
    inputSchema: object(
      {
        query: {
          type: 'string',
          maxLength: MAX_QUERY_CHARS,
          description: 'text to look for in symbol names (empty: every symbol)',
        },
      },
      ['query'],
    ),
    outputSchema: object(
      {
        symbols: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              kind: KIND,
              file: { type: 'string' },
              ...SPOT,
              containerName: { type: 'string' },
            },
            required: ['name', 'kind', 'file', 'line', 'column'],
          },
        },
        truncated: TRUNCATED,
        partial: PARTIAL,
        notAnswered: {
          type: 'array',
          description: 'language servers that could not answer, and why',
          items: {
            type: 'object',
            properties: { server: { type: 'string' }, message: { type: 'string' } },
            required: ['server', 'message'],
          },
        },
      },
      ['symbols'],
    ),
    annotations: READ_ONLY,
  },
  {
    name: LSP_RENAME,
    description:
      'Preview a rename of the symbol at a position: every edit, in every file, that renaming it to newName takes. mcpctl writes nothing: apply the edits yourself (positions are 1-based, end exclusive).',
    inputSchema: object(
      {
        ...POSITION,
        newName: { type: 'string', maxLength: MAX_NAME_CHARS, description: 'the new name' },
      },
      ['file', 'line', 'column', 'newName'],
    ),
    outputSchema: object(
      {
        changes: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              file: { type: 'string' },
              edits: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { ...RANGE, newText: { type: 'string' } },
                  required: ['line', 'column', 'endLine', 'endColumn', 'newText'],
                },
              },
            },
            required: ['file', 'edits'],
          },
        },
        partial: PARTIAL,
      },
      ['changes'],
    ),
    annotations: READ_ONLY,
  },
];

/** The `lsp_*` tools as tools the gateway serves itself, and what `mcpctl_find_tools` finds. */
export interface LspTools extends OwnTools {
  /** The tools as found now (none while no server is Ready) and the servers that are not. */
  found(): Promise<{ tools: FoundTool[]; unavailable: UnavailableServer[] }>;
}

export interface LspToolsOptions {
  /** False: never in tools/list (`--meta-tools=only`); still callable and found. */
  readonly listed: boolean;
  /** Where failures that are not the server's or the agent's are reported (a bug's trace). */
  readonly log: (message: string) => void;
}

export function ownLspTools(
  port: Pick<SessionPort, 'languageServers' | 'ask'>,
  options: LspToolsOptions,
): LspTools {
  /** The tools as listed now: none while no server is Ready, else with the files they take. */
  async function current(): Promise<{
    tools: Tool[];
    ready: LspServerView[];
    targets: LspServerView[];
  }> {
    const targets = await port.languageServers();
    const ready = targets.filter((t) => t.ready).sort((a, b) => a.name.localeCompare(b.name));
    if (ready.length === 0) return { tools: [], ready, targets };
    const handled = ready
      .map(
        (target) =>
          `${printable(target.name)} (${Object.keys(target.extensionToLanguage).sort().map(printable).join(', ')})`,
      )
      .join('; ');
    const tools = LSP_TOOLS.map((t) => ({
      ...t,
      description: `${t.description ?? ''} Language servers ready now: ${handled}.`,
    }));
    return { tools, ready, targets };
  }

  return {
    tools: LSP_TOOLS,
    async listed() {
      return options.listed ? (await current()).tools : [];
    },
    async found() {
      const { tools, ready, targets } = await current();
      const server = ready.map((r) => r.name).join(', ');
      return {
        tools: tools.map((t) => ({
          name: t.name,
          server,
          ...(t.description === undefined ? {} : { description: t.description }),
          inputSchema: t.inputSchema,
        })),
        unavailable: targets
          .filter((t) => !t.ready)
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((t) => ({
            server: LANGUAGE_SERVERS.objectOf(t.name),
            reason: t.unavailable?.reason ?? 'NotReady',
            message: t.unavailable?.message ?? `language server "${t.name}" is not ready yet`,
            action: t.unavailable?.action ?? 'ask again in a moment',
          })),
      };
    },
    async call(name, args, context) {
      if (!isLspToolName(name)) return errorResult(`no tool named ${name}; list the tools again`);
      const parsed = parseLspCall(name, args);
      if (!parsed.ok) return errorResult(parsed.error);
      try {
        return await answer(port, parsed.call, context.signal);
      } catch (err) {
        // The session's refusal, the server's error, a timeout, a file refused by the client:
        // the model reads it.
        if (!(err instanceof LspError)) options.log(`${name} failed: ${messageOf(err)}`);
        return errorResult(messageOf(err));
      }
    },
  };
}

async function answer(
  port: Pick<SessionPort, 'ask'>,
  call: LspCall,
  signal: AbortSignal,
): Promise<CallToolResult> {
  switch (call.tool) {
    case LSP_DEFINITION:
      return structured(await port.ask('definition', call.args, signal));
    case LSP_REFERENCES:
      return structured(await port.ask('references', call.args, signal));
    case LSP_HOVER:
      return structured(await port.ask('hover', call.args, signal));
    case LSP_DOCUMENT_SYMBOLS:
      return structured(await port.ask('documentSymbols', call.args, signal));
    case LSP_RENAME:
      return structured(await port.ask('rename', call.args, signal));
    case LSP_WORKSPACE_SYMBOLS:
      return structured(await port.ask('workspaceSymbols', call.args, signal));
    case LSP_DIAGNOSTICS: {
      const answer = await port.ask('diagnostics', call.args, signal);
      // No diagnostics of the current version yet: saying "none" would be a lie.
      return answer.state === 'analysing' ? errorResult(answer.message) : structured(answer);
    }
  }
}

/** An answer as structured content plus the same as text. */
function structured(value: object): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value) }],
    // The answers are plain JSON objects (lsp/requests.ts), as the outputSchema describes.
    structuredContent: value as Record<string, unknown>,
  };
}
