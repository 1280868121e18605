/**
 * Terminal safety: text from config files, MCP servers and their stderr never reaches the
 * user's terminal as control sequences (an OSC 52 clipboard write, a screen clear, a spoofed
 * line, a bidi override that reorders what is shown, a zero-width or tag character that hides
 * text).
 *
 * Guarantees:
 * - What is escaped, and how, is api/escape.ts: one table and one escape for every surface.
 *   Here `escapeText` adds only `keepOwnSgr`: it keeps the exact colour codes style.ts emits.
 *   Every write of a CLI command passes through it (`terminalSafeIo`), so a printer that
 *   forgets to escape a field still cannot emit a control sequence.
 * - `json` and `yaml` stay exact (they parse back to the same value) and contain none of those
 *   characters raw: the format's own escapes (`\u001b`, `"\u009b"`) carry them, so passing them
 *   through `escapeText` changes nothing.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
// The leaf, not the api/ barrel: serve loads this module (issue #37).
import { escapeText as escapeWhole, hasUnshown, jsonEscaped } from '../../api/escape.js';
import { OWN_SGR } from './style.js';

/** Whole output text, escaped (api/escape.ts); with `keepOwnSgr` our own colours pass. */
export function escapeText(text: string, opts: { keepOwnSgr?: boolean } = {}): string {
  if (!opts.keepOwnSgr) return escapeWhole(text);
  // Split on our own colour codes (kept by the capture group) and escape only what is between.
  return text
    .split(OWN_SGR)
    .map((part, i) => (i % 2 === 1 ? part : escapeWhole(part)))
    .join('');
}

/** `-o json`: pretty JSON, exact, with no raw control character (see the module doc). */
export function json(value: unknown): string {
  return `${jsonEscaped(JSON.stringify(value, null, 2))}\n`;
}

/**
 * yaml's own string output leaves DEL, C1, bidi and zero-width characters raw. Strings holding any control
 * character are written double-quoted with JSON's escapes instead, which YAML shares.
 */
const SAFE_STRING: Yaml.ScalarTag = {
  identify: (value) => typeof value === 'string' && hasUnshown(value),
  default: true,
  tag: 'tag:yaml.org,2002:str',
  // Never matches: this tag only writes; reading plain scalars stays with the core tags.
  test: /(?!)/,
  resolve: (text) => text,
  stringify: (item) => jsonEscaped(JSON.stringify(String(item.value))),
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
