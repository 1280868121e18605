/**
 * What the agent modules share: taking the servers out of one `mcpServers` map of a JSON(C)
 * file, and placing mcpctl's one entry, on the file's text.
 *
 * Guarantees:
 * - `takeServers` moves every entry of the map except the one named `mcpctl` and those `keep` names a
 *   reason for (left with the agent, the reason in `notes`); an entry that does not check
 *   (entries.ts) or cannot be converted is a refusal naming it, and the whole plan writes
 *   nothing.
 * - `placeEntry` adds mcpctl's entry; the same entry already there is no change (a second
 *   setup is a no-op); another server under that name is a refusal, never overwritten.
 * - Edits are made on the text (jsonc-text.ts), so comments and formatting survive.
 */
import { isObject, jsonEqual } from '../../api/index.js';
import {
  checkEntry,
  convertSettingsVariables,
  named,
  secretsOf,
  type Converted,
  type Secret,
} from './entries.js';
import { parseConfig, removeAt, setAt, valueAt } from './jsonc-text.js';
import {
  ENTRY_NAME,
  type AgentFile,
  type AgentPlan,
  type FileChange,
  type MovedServer,
} from './types.js';

/** A plan being built: the modules add to it file by file. */
export interface Draft {
  readonly moves: MovedServer[];
  readonly notes: string[];
  readonly refusals: string[];
  readonly secrets: Secret[];
}

export function newDraft(): Draft {
  return { moves: [], notes: [], refusals: [], secrets: [] };
}

export interface TakeOptions {
  /** The file's path, as messages name it. */
  readonly file: string;
  /** Its text now (edits of this plan so far applied). */
  readonly text: string;
  /** Its parsed value (of the original text: sections not yet edited are the same). */
  readonly value: unknown;
  /** Where the map is: `['mcpServers']`, `['projects', P, 'mcpServers']`. */
  readonly section: readonly string[];
  /** The map's place in words: `mcpServers`, `projects["/ws"].mcpServers`. */
  readonly where: string;
  readonly to: MovedServer['to'];
  /** For `to: 'workspace'`: the folder's real path. */
  readonly workspace?: string;
  /** The file's variable syntax: `.mcp.json`'s (copied), a settings file's, or an editor's. */
  readonly syntax:
    | 'claude'
    | 'settings'
    | ((where: string, entry: Readonly<Record<string, unknown>>) => Converted);
  /** Why a server stays with the agent (excluded, disabled…), or undefined to move it. */
  readonly keep?: (name: string) => string | undefined;
}

/** The text with the map's movable servers taken out; moves and messages go to `draft`. */
export function takeServers(draft: Draft, o: TakeOptions): string {
  const servers = valueAt(o.value, [...o.section]);
  if (servers === undefined) return o.text;
  if (!isObject(servers)) {
    draft.refusals.push(
      `${o.file}: ${o.where} is not an object of servers; fix the file by hand, then run setup again`,
    );
    return o.text;
  }
  let text = o.text;
  for (const [name, raw] of Object.entries(servers)) {
    const where = `${o.where}.${named(name)}`;
    // mcpctl's own entry is placeEntry's to judge, never moved.
    if (name === ENTRY_NAME) continue;
    if (isObject(raw)) draft.secrets.push(...secretsOf(raw));
    const reason = o.keep?.(name);
    if (reason !== undefined) {
      draft.notes.push(`${o.file}: ${where} stays with the agent: ${reason}`);
      continue;
    }
    if (!isObject(raw)) {
      draft.refusals.push(
        checkEntry(o.file, where, name, raw) ?? `${o.file}: ${where} is not a server entry`,
      );
      continue;
    }
    let entry: Record<string, unknown> = { ...raw };
    let changed = false;
    if (o.syntax !== 'claude') {
      const convert = o.syntax === 'settings' ? convertSettingsVariables : o.syntax;
      const converted = convert(`${o.file}: ${where}`, raw);
      if (!converted.ok) {
        draft.refusals.push(converted.problem);
        continue;
      }
      entry = converted.entry;
      changed = converted.changed;
    }
    // Checked as the server file will hold it: what mcpctl reads is what the agent meant.
    const problem = checkEntry(o.file, where, name, entry);
    if (problem !== undefined) {
      draft.refusals.push(problem);
      continue;
    }
    if (changed)
      draft.notes.push(
        `${o.file}: ${where}: its variables written as \${VAR}, the server file's syntax (same meaning)`,
      );
    draft.secrets.push(...secretsOf(entry));
    const move: MovedServer = { name, from: `${o.file} ${where}`, to: o.to, entry };
    draft.moves.push(o.workspace === undefined ? move : { ...move, workspace: o.workspace });
    text = removeAt(text, [...o.section, name]);
  }
  return text;
}

/** The text with mcpctl's entry in the map at `section` (see the module doc). */
export function placeEntry(
  draft: Draft,
  file: string,
  text: string,
  value: unknown,
  section: readonly string[],
  entry: Readonly<Record<string, unknown>>,
): string {
  const servers = valueAt(value, [...section]);
  if (servers !== undefined && !isObject(servers)) return text; // refused by takeServers
  const existing = valueAt(value, [...section, ENTRY_NAME]);
  if (existing !== undefined) {
    if (jsonEqual(existing, entry)) return text;
    draft.refusals.push(
      `${file}: ${section.join('.')}.${named(ENTRY_NAME)} already holds another server; if it is an earlier setup's, run 'mcpctl setup --undo' with that setup's options, else rename it; then run setup again`,
    );
    return text;
  }
  return setAt(text, [...section, ENTRY_NAME], entry);
}

/** A file's text and parsed value: an absent file is empty; a file not understood is refused. */
export function loaded(
  draft: Draft,
  file: AgentFile | undefined,
):
  | { readonly text: string; readonly value: Record<string, unknown>; readonly exists: boolean }
  | undefined {
  if (file === undefined || file.kind === 'absent') return { text: '', value: {}, exists: false };
  if (file.kind === 'refused') {
    draft.refusals.push(`${file.path}: ${file.problem}`);
    return undefined;
  }
  const parsed = parseConfig(file.path, file.text);
  if (!parsed.ok) {
    draft.refusals.push(`${parsed.problem}; fix it (or move it away), then run setup again`);
    return undefined;
  }
  if (!isObject(parsed.value)) {
    draft.refusals.push(
      `${file.path}: the top of the file is not a JSON object; fix it (or move it away), then run setup again`,
    );
    return undefined;
  }
  return { text: file.text, value: parsed.value, exists: true };
}

/** The plan a draft became. */
export function planOf(draft: Draft, changes: readonly FileChange[]): AgentPlan {
  return {
    changes: draft.refusals.length > 0 ? [] : changes,
    moves: draft.refusals.length > 0 ? [] : draft.moves,
    notes: draft.notes,
    refusals: draft.refusals,
    secrets: draft.secrets,
  };
}
