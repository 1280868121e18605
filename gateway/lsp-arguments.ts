/**
 * The arguments of the gateway's `lsp_*` tools, checked before anything is asked of a language
 * server: an agent's mistake is answered with the argument's name and what it must be, never a
 * crash or a server error.
 *
 * Guarantees:
 * - `parseLspCall` is pure and total: any value in, a typed call or one message out. The
 *   message names the first bad argument, what it must be, and (shortened, escaped) what was
 *   given.
 * - `file` is a non-empty string without control characters, at most MAX_PATH_CHARS; whether it
 *   is inside the workspace is the language-server client's check (lsp/workspace-files.ts).
 * - `line` and `column` are whole numbers from 1 (as an editor shows them); a string, a
 *   fraction, 0 or a negative number is refused. Past the end of the file is the client's check.
 * - `newName` and `query` are bounded (MAX_NAME_CHARS, MAX_QUERY_CHARS) and hold no control
 *   characters or line breaks; `newName` is not blank. An empty `query` asks for every symbol.
 * - Arguments a tool does not take are ignored.
 */
import type { FileArgs, PositionArgs } from '../controller/lsp-questions.js';

export const LSP_DEFINITION = 'lsp_definition';
export const LSP_REFERENCES = 'lsp_references';
export const LSP_HOVER = 'lsp_hover';
export const LSP_DIAGNOSTICS = 'lsp_diagnostics';
export const LSP_DOCUMENT_SYMBOLS = 'lsp_document_symbols';
export const LSP_WORKSPACE_SYMBOLS = 'lsp_workspace_symbols';
export const LSP_RENAME = 'lsp_rename';

export const LSP_TOOL_NAMES = [
  LSP_DEFINITION,
  LSP_REFERENCES,
  LSP_HOVER,
  LSP_DIAGNOSTICS,
  LSP_DOCUMENT_SYMBOLS,
  LSP_WORKSPACE_SYMBOLS,
  LSP_RENAME,
] as const;

export type LspToolName = (typeof LSP_TOOL_NAMES)[number];

export const MAX_PATH_CHARS = 4096;
export const MAX_NAME_CHARS = 1000;
export const MAX_QUERY_CHARS = 1000;

/** One checked call: the tool and the arguments its question takes (SessionPort.ask). */
export type LspCall =
  | { readonly tool: typeof LSP_DEFINITION | typeof LSP_HOVER; readonly args: PositionArgs }
  | {
      readonly tool: typeof LSP_REFERENCES;
      readonly args: PositionArgs & { readonly includeDeclaration?: boolean };
    }
  | {
      readonly tool: typeof LSP_DIAGNOSTICS | typeof LSP_DOCUMENT_SYMBOLS;
      readonly args: FileArgs;
    }
  | { readonly tool: typeof LSP_WORKSPACE_SYMBOLS; readonly args: { readonly query: string } }
  | {
      readonly tool: typeof LSP_RENAME;
      readonly args: PositionArgs & { readonly newName: string };
    };

export type Parsed =
  { readonly ok: true; readonly call: LspCall } | { readonly ok: false; readonly error: string };

export function isLspToolName(name: string): name is LspToolName {
  return (LSP_TOOL_NAMES as readonly string[]).includes(name);
}

/** Checks `args` for `tool`: the call, or the message naming the first bad argument. */
export function parseLspCall(tool: LspToolName, args: Readonly<Record<string, unknown>>): Parsed {
  try {
    return { ok: true, call: callOf(tool, args) };
  } catch (err) {
    if (err instanceof BadArgument) return { ok: false, error: `${tool}: ${err.message}` };
    throw err;
  }
}

class BadArgument extends Error {}

function callOf(tool: LspToolName, args: Readonly<Record<string, unknown>>): LspCall {
  switch (tool) {
    case LSP_DEFINITION:
    case LSP_HOVER:
      return { tool, args: position(args) };
    case LSP_REFERENCES: {
      const include = args.includeDeclaration;
      if (include !== undefined && typeof include !== 'boolean')
        throw new BadArgument(`includeDeclaration must be true or false, got ${shown(include)}`);
      return {
        tool,
        args: {
          ...position(args),
          ...(include === undefined ? {} : { includeDeclaration: include }),
        },
      };
    }
    case LSP_DIAGNOSTICS:
    case LSP_DOCUMENT_SYMBOLS:
      return { tool, args: { file: file(args) } };
    case LSP_WORKSPACE_SYMBOLS:
      return {
        tool,
        args: {
          query: text(
            args,
            'query',
            MAX_QUERY_CHARS,
            'text to look for in symbol names (empty: every symbol)',
          ),
        },
      };
    case LSP_RENAME: {
      const at = position(args);
      const newName = text(args, 'newName', MAX_NAME_CHARS, 'the new name of the symbol');
      if (newName.trim() === '') throw new BadArgument('newName must not be blank');
      return { tool, args: { ...at, newName } };
    }
  }
}

function position(args: Readonly<Record<string, unknown>>): PositionArgs {
  return { file: file(args), line: ordinal(args, 'line'), column: ordinal(args, 'column') };
}

function file(args: Readonly<Record<string, unknown>>): string {
  const value = args.file;
  const what = 'a path relative to the workspace (or absolute inside it), e.g. "src/main.ts"';
  if (typeof value !== 'string' || value.trim() === '')
    throw new BadArgument(`file must be ${what}, got ${shown(value)}`);
  if (value.length > MAX_PATH_CHARS)
    throw new BadArgument(`file must be ${what} of at most ${MAX_PATH_CHARS} characters`);
  if (CONTROL.test(value))
    throw new BadArgument(`file must be ${what} without control characters, got ${shown(value)}`);
  return value;
}

function ordinal(args: Readonly<Record<string, unknown>>, name: 'line' | 'column'): number {
  const value = args[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new BadArgument(
      `${name} must be a whole number from 1 (the ${name} as an editor shows it), got ${shown(value)}`,
    );
  return value;
}

function text(
  args: Readonly<Record<string, unknown>>,
  name: 'query' | 'newName',
  max: number,
  what: string,
): string {
  const value = args[name];
  if (typeof value !== 'string')
    throw new BadArgument(`${name} must be ${what} (a string), got ${shown(value)}`);
  if (value.length > max)
    throw new BadArgument(`${name} must be at most ${max} characters, got ${value.length}`);
  if (CONTROL.test(value))
    throw new BadArgument(
      `${name} must be ${what} without control characters or line breaks, got ${shown(value)}`,
    );
  return value;
}

/** C0 controls (tab and line breaks included), DEL and C1 controls. */
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const SHOWN_CHARS = 60;

/** A given value as the message quotes it: JSON (control characters escaped), shortened. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  let json: string;
  try {
    json = JSON.stringify(value) ?? typeof value;
  } catch {
    json = typeof value;
  }
  // JSON escapes C0 controls; DEL and C1 too, so a message never carries one raw.
  json = json.replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return json.length <= SHOWN_CHARS
    ? json
    : `${json.slice(0, SHOWN_CHARS)}… (${json.length} characters)`;
}
