/**
 * A tool's or prompt's definition as the model reads it, and the digest a pin keeps of it
 * (issue #35: what the user approved is what the agent gets).
 *
 * Guarantees:
 * - `definitionOf` keeps exactly the fields a model is shown: a tool's name, title, description,
 *   input and output schema and annotations; a prompt's name, title, description and arguments.
 *   `_meta`, icons and anything else a server adds are not part of it, so a server cannot make
 *   a pin differ (or match) through them.
 * - `definitionDigest` is sha256 hex over the canonical text (keys sorted, arrays in order): the
 *   same definition in any key order has the same digest; any change a model could read changes
 *   it.
 * - `unshownPlaces` names every place (`description`, `inputSchema.properties.path.description`,
 *   or a key, `inputSchema.properties.x (the key)`) whose text holds a character of the escape table
 *   (escape.ts: controls, bidi overrides, zero-width, tags), for every surface to flag.
 * - `withEscapedText` returns the item with every string value of its definition's fields shown
 *   escaped (escape.ts `escapeText`: newlines and tabs kept), `escapable: false` when a key or
 *   the name itself holds such a character (escaping it would change what the agent calls).
 */
import type { Prompt, Tool } from '@modelcontextprotocol/sdk/types.js';
import { canonicalText, sha256Hex } from './digest.js';
import { diffLines } from 'diff';
import { escapeField, escapeText, hasUnshown } from './escape.js';

export type DefinitionKind = 'tool' | 'prompt';

/** The model-visible part of a tool or a prompt: plain JSON. */
export type Definition = Readonly<Record<string, unknown>>;

const TOOL_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'];
const PROMPT_FIELDS = ['name', 'title', 'description', 'arguments'];

const fieldsOf = (kind: DefinitionKind): readonly string[] =>
  kind === 'tool' ? TOOL_FIELDS : PROMPT_FIELDS;

/** The definition of a tool or prompt: its model-visible fields that are set. */
export function definitionOf(kind: DefinitionKind, item: Tool | Prompt): Definition {
  const source = item as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const field of fieldsOf(kind)) if (source[field] !== undefined) out[field] = source[field];
  return out;
}

export function definitionDigest(definition: Definition): string {
  return sha256Hex(canonicalText(definition));
}

/** Where `value` holds an unshown character: paths of strings and of keys (`path[…]`). */
export function unshownPlaces(value: unknown, at = ''): string[] {
  if (typeof value === 'string') return hasUnshown(value) ? [at || '(value)'] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => unshownPlaces(v, `${at}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const place = at === '' ? key : `${at}.${key}`;
    if (hasUnshown(key)) out.push(`${place} (the key)`);
    out.push(...unshownPlaces(v, place));
  }
  return out;
}

function escapedStrings(value: unknown): unknown {
  if (typeof value === 'string') return escapeText(value);
  if (Array.isArray(value)) return value.map(escapedStrings);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = escapedStrings(v);
  return out;
}

function hasUnshownKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasUnshownKey);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([k, v]) => hasUnshown(k) || hasUnshownKey(v));
}

/**
 * `item` with the strings of its definition's fields escaped (the name kept: it is what the
 * agent calls). `escapable` is false when the name or a key holds an unshown character.
 */
export function withEscapedText<T extends Tool | Prompt>(
  kind: DefinitionKind,
  item: T,
): { readonly item: T; readonly escapable: boolean } {
  const source = item as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = { ...source };
  let escapable = !hasUnshown(item.name);
  for (const field of fieldsOf(kind)) {
    if (field === 'name' || source[field] === undefined) continue;
    if (hasUnshownKey(source[field])) escapable = false;
    out[field] = escapedStrings(source[field]);
  }
  return { item: out as T, escapable };
}

/**
 * Why a definition is held: it differs from its pin, it has none, it holds unshown characters
 * that cannot be escaped (in its name or a key), or the pins cannot be read at all.
 */
export type HeldChange = 'changed' | 'added' | 'unshown' | 'unreadable';

/** One tool or prompt left out until the user decides. */
export interface HeldDefinition {
  readonly kind: DefinitionKind;
  readonly name: string;
  readonly change: HeldChange;
  /** Digest of the definition listed now: what an acceptance names. */
  readonly digest: string;
  /** The definition accepted before (absent: new, or the store cannot be read). */
  readonly before?: Definition;
  readonly after: Definition;
  /** Places holding unshown characters in `after`. */
  readonly unshown: readonly string[];
  /** The user rejected this definition: not asked about again. */
  readonly rejected: boolean;
}

/** A definition as lines of JSON, keys sorted, every line escaped (what a diff compares). */
function definitionLines(definition: Definition | undefined): string {
  if (definition === undefined) return '';
  return `${JSON.stringify(JSON.parse(canonicalText(definition)), null, 2)}\n`;
}

/**
 * What changed from `before` to `after` (a new item: all of `after`), as lines marked `- `,
 * `+ ` or `  `, each escaped (escape.ts `escapeField`), so an unshown character can neither hide
 * a change nor reorder the text around it. The same lines on every surface: `describe`,
 * `approve --tools`, the question to the agent's user.
 */
export function definitionDiff(before: Definition | undefined, after: Definition): string[] {
  const out: string[] = [];
  for (const part of diffLines(definitionLines(before), definitionLines(after))) {
    const mark = part.added ? '+ ' : part.removed ? '- ' : '  ';
    for (const line of part.value.replace(/\n$/, '').split('\n'))
      out.push(`${mark}${escapeField(line)}`);
  }
  return out;
}

const CHANGE_WORDS: Readonly<Record<HeldChange, string>> = {
  changed: 'changed',
  added: 'new',
  unshown: 'unshown characters',
  unreadable: 'pins unreadable',
};

/**
 * One held item as every surface names it, escaped: `tool write_file (changed)`, with the
 * places of unshown characters (`; unshown characters in description`) and a rejection.
 */
export function heldLine(h: HeldDefinition): string {
  const places = h.unshown.join(', ');
  const unshown =
    h.unshown.length > 0 && h.change !== 'unshown' ? `; unshown characters in ${places}` : '';
  const what = h.change === 'unshown' ? `unshown characters in ${places}` : CHANGE_WORDS[h.change];
  const rejected = h.rejected ? ', rejected' : '';
  return escapeField(`${h.kind} ${h.name} (${what}${rejected}${unshown})`);
}
