/**
 * Terminal safety: text from config files, MCP servers and their stderr never reaches the
 * user's terminal as control sequences (an OSC 52 clipboard write, a screen clear, a spoofed
 * line, a bidi override that reorders what is shown).
 *
 * Guarantees:
 * - `escapeField` renders a single-line value (a name, a table cell, a tool, a stderr line)
 *   with every control character visible: C0 (newline and tab included, as `\n`, `\t`), DEL
 *   and C1 as `\xHH` (U+009B, the 8-bit CSI, as `\x9b`), line/paragraph separators and bidi
 *   overrides/isolates (U+202A–U+202E, U+2066–U+2069) as `\uHHHH`. Other text is unchanged.
 * - `escapeText` does the same for whole human output but keeps newlines and tabs; with
 *   `keepOwnSgr` it also keeps the exact colour codes style.ts emits. Every write of a CLI
 *   command passes through it (`terminalSafeIo`), so a printer that forgets to escape a field
 *   still cannot emit a control sequence.
 * - `json` and `yaml` stay exact (they parse back to the same value) and contain none of those
 *   characters raw: the format's own escapes (`\u001b`, `"\x9b"`) carry them, so passing them
 *   through `escapeText` changes nothing.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { OWN_SGR } from './style.js';

/** Everything escapeField escapes (C0, DEL, C1, U+2028/2029, bidi controls). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same without tab and newline, which whole-text output needs. */
const CONTROL_BUT_LAYOUT =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const HAS_CONTROL = new RegExp(CONTROL.source);
/** What JSON.stringify leaves raw (it escapes all of C0 itself). */
const JSON_RAW = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function hex(c: string, width: number): string {
  return c.charCodeAt(0).toString(16).padStart(width, '0');
}

function visible(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  return c.charCodeAt(0) < 0x100 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`;
}

/** A single-line value with every control character made visible. */
export function escapeField(text: string): string {
  return text.replace(CONTROL, visible);
}

/** Whole output text: control characters visible, lines and tabs kept (see the module doc). */
export function escapeText(text: string, opts: { keepOwnSgr?: boolean } = {}): string {
  const escaped = (part: string): string => part.replace(CONTROL_BUT_LAYOUT, visible);
  if (!opts.keepOwnSgr) return escaped(text);
  // Split on our own colour codes (kept by the capture group) and escape only what is between.
  return text
    .split(OWN_SGR)
    .map((part, i) => (i % 2 === 1 ? part : escaped(part)))
    .join('');
}

function jsonEscape(c: string): string {
  return `\\u${hex(c, 4)}`;
}

/** `-o json`: pretty JSON, exact, with no raw control character (see the module doc). */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(JSON_RAW, jsonEscape)}\n`;
}

/**
 * yaml's own string output leaves DEL, C1 and bidi controls raw. Strings holding any control
 * character are written double-quoted with JSON's escapes instead, which YAML shares.
 */
const SAFE_STRING: Yaml.ScalarTag = {
  identify: (value) => typeof value === 'string' && HAS_CONTROL.test(value),
  default: true,
  tag: 'tag:yaml.org,2002:str',
  // Never matches: this tag only writes; reading plain scalars stays with the core tags.
  test: /(?!)/,
  resolve: (text) => text,
  stringify: (item) => JSON.stringify(String(item.value)).replace(JSON_RAW, jsonEscape),
};

// Loaded by the first `-o yaml`, not by every command: serve and the other commands start
// about 40 ms sooner without it.
const requireHere = createRequire(import.meta.url);
let yamlModule: typeof Yaml | undefined;

/** `-o yaml`: exact, with no raw control character (see the module doc). */
export function yaml(value: unknown): string {
  yamlModule ??= requireHere('yaml') as typeof Yaml;
  return yamlModule.stringify(value, { customTags: (tags) => [SAFE_STRING, ...tags] });
}
