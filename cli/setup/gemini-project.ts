/**
 * Gemini CLI's project servers (`<ws>/.gemini/settings.json`) under `mcpctl setup gemini`:
 * mcpctl serves them (informers read that file's `mcpServers`, gated), so Gemini must not start
 * them too. See cli/setup/AGENTS.md.
 *
 * Guarantees:
 * - The repository's file is never edited. Each of its servers Gemini would start (not excluded
 *   or left out of `mcp.allowed` by the user's settings, not already disabled) gets Gemini's own
 *   per-server switch, `~/.gemini/mcp-server-enablement.json` `{ "<name>": { "enabled": false } }`,
 *   under the name Gemini looks up (trimmed, lower case); other members of the file are kept.
 * - That switch is Gemini's global one (by name, in every project): said in a note, with the
 *   `mcpctl approve` each server needs before mcpctl starts it.
 * - A workspace file not understood (a FIFO, a link, a syntax error, `mcpServers` not an object)
 *   refuses the whole setup naming it; so does one whose `mcpServers` mcpctl would refuse (a bad
 *   entry, a name with a control character: the file's errors, as informers validate it), since
 *   switching those off for Gemini would leave them started by no one (past the gated files' cap,
 *   MAX_GATED_SERVERS_PER_FILE, refused before any entry is validated); and a project server
 *   named `mcpctl` (disabling that name would stop mcpctl's own entry in every project).
 * - A workspace that is the home has no project file (it is Gemini's user file).
 */
import {
  isObject,
  MAX_GATED_SERVERS_PER_FILE,
  normalizeServerConfig,
  validateSourceDocument,
} from '../../api/index.js';
import { named } from './entries.js';
import { setAt } from './jsonc-text.js';
import { loaded, type Draft } from './section.js';
import { ENTRY_NAME, type AgentFile } from './types.js';

/** Gemini's name comparison (and the enablement file's key). */
export const geminiName = (name: string): string => name.toLowerCase().trim();

export interface ProjectInput {
  /** `<ws>/.gemini/settings.json` as read (undefined when it is the user file). */
  readonly file: AgentFile | undefined;
  /** The enablement file's path, text now and parsed value. */
  readonly enablement: {
    readonly path: string;
    readonly text: string;
    readonly value: Record<string, unknown>;
  };
  /** Why Gemini does not start `name` today (user settings, the switch), or undefined. */
  readonly whyKept: (name: string) => string | undefined;
}

/** The enablement file's text with the project's servers switched off for Gemini. */
export function disableProjectServers(draft: Draft, input: ProjectInput): string {
  const { file, enablement } = input;
  if (file === undefined || file.kind === 'absent') return enablement.text;
  const doc = loaded(draft, file);
  if (doc === undefined) return enablement.text;
  const servers = doc.value.mcpServers;
  if (servers === undefined) return enablement.text;
  if (!isObject(servers)) {
    draft.refusals.push(
      `${file.path}: mcpServers is not an object of servers; fix the repository's file, then run setup again`,
    );
    return enablement.text;
  }
  const count = Object.keys(servers).length;
  if (count > MAX_GATED_SERVERS_PER_FILE) {
    // Refused by mcpctl unvalidated (the gated scopes' cap): not validated here either.
    draft.refusals.push(
      `${file.path}: mcpServers: ${count} servers, more than the ${MAX_GATED_SERVERS_PER_FILE} a repository's file may hold; mcpctl would not serve them, so setup leaves them with Gemini CLI: keep the servers you use, then run setup again`,
    );
    return enablement.text;
  }
  // As mcpctl's informers read it (its mcpServers only): what they refuse, mcpctl will not serve.
  const issues = validateSourceDocument({ mcpServers: servers }, normalizeServerConfig).errors;
  if (issues.length > 0) {
    // The messages start with their place, any control character in it escaped (api/schema.ts).
    for (const issue of issues)
      draft.refusals.push(
        `${file.path}: ${issue.message}; mcpctl would not serve this file's servers, so setup leaves them with Gemini CLI: fix the repository's file, then run setup again`,
      );
    return enablement.text;
  }
  let text = enablement.text;
  const disabled: string[] = [];
  for (const name of Object.keys(servers)) {
    const key = geminiName(name);
    if (key === ENTRY_NAME) {
      draft.refusals.push(
        `${file.path}: mcpServers.${named(name)} takes mcpctl's own name, and Gemini's switch for it would stop mcpctl in every project; rename that server in the repository's file, then run setup again`,
      );
      continue;
    }
    const reason = input.whyKept(name);
    if (reason !== undefined) {
      draft.notes.push(
        `${file.path}: mcpServers.${named(name)}: Gemini CLI does not start it (${reason}); mcpctl serves it once approved: mcpctl approve ${named(name)}`,
      );
      continue;
    }
    const state = enablement.value[key];
    text = isObject(state)
      ? setAt(text, [key, 'enabled'], false)
      : setAt(text, [key], { enabled: false });
    disabled.push(name);
  }
  if (disabled.length > 0)
    draft.notes.push(
      `${enablement.path}: ${disabled.map(named).join(', ')} of ${file.path} disabled for Gemini CLI with its own switch, which is global (by name, in every project: a server of that name in another folder's .gemini/settings.json is then mcpctl's to serve there too); mcpctl serves them from that file once approved: mcpctl approve NAME (the repository's file is not edited)`,
    );
  return text;
}
