/**
 * What a command names: `TYPE/NAME` or a bare `NAME` (DESIGN §7). Two kinds share one name
 * space on the command line: MCP servers (`server/NAME`) and language servers
 * (`languageserver/NAME`, short `lsp/NAME`).
 *
 * Guarantees:
 * - A prefix counts as a type only when it is one of the known type words; otherwise the whole
 *   text is the name (an MCP server named `a/b` stays reachable as `a/b` or `server/a/b`).
 * - A bare name carries no kind: the daemon resolves it, and refuses it when both kinds have
 *   that name (the message names both `TYPE/NAME` forms), so a decision never lands on the
 *   other kind by accident.
 */
import { kindNamed, SERVER_KINDS, type ServerKind } from '../api/index.js';
import { UsageError } from './errors.js';

/** The kind a reference names (api/kinds.ts). */
export type ObjectKind = ServerKind;

export interface ObjectRef {
  /** Absent for a bare name: the daemon resolves it. */
  readonly kind?: ObjectKind;
  readonly name: string;
}

const TYPES: Readonly<Record<string, ObjectKind>> = Object.fromEntries(
  SERVER_KINDS.flatMap((kind) => kindNamed(kind).typeWords.map((word) => [word, kind])),
);

/** The TYPE words a reference (and `describe`) takes, in the order help shows them. */
export const OBJECT_TYPES: readonly string[] = Object.keys(TYPES);

export function parseObjectRef(text: string): ObjectRef {
  const at = text.indexOf('/');
  if (at > 0) {
    const kind = TYPES[text.slice(0, at).toLowerCase()];
    if (kind !== undefined) {
      const name = text.slice(at + 1);
      if (name === '')
        throw new UsageError(`${JSON.stringify(text)} names no object after the "/"`);
      return { kind, name };
    }
  }
  if (text === '') throw new UsageError('a name is needed');
  return { name: text };
}

/** `server/NAME` or `languageserver/NAME`: how output and messages name an object. */
export function refText(kind: ObjectKind, name: string): string {
  return kindNamed(kind).objectOf(name);
}
