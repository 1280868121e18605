/**
 * Qwen Code (`mcpctl setup qwen`). Its files are the agent's own and mcpctl's sources, and
 * their `mcp.allowed` / `mcp.excluded` gate both; see cli/setup/AGENTS.md.
 *
 * Guarantees:
 * - User servers (`~/.qwen/settings.json` `mcpServers`) move to mcpctl's user server file
 *   (`$VAR` written `${VAR}`), so Qwen no longer starts them and mcpctl still does, once. A
 *   server excluded (`mcp.excluded`) or left out of `mcp.allowed` stays where it is: those
 *   lists gate mcpctl too, so it starts nowhere, as before. Nothing is added to
 *   `mcp.excluded`: that would keep mcpctl from starting the server as well.
 * - `~/.qwen/settings.json` gets one `mcpctl` entry, `serve --meta-tools` (Qwen never re-lists
 *   its tools, so a server added later is reached through the meta tools; mcpctl, reading the file, knows its own
 *   entry and offers nothing through it), and `mcp.allowed`, when the user has one, the name
 *   `mcpctl`.
 * - The workspace's `.qwen/settings.json` is the repository's: never edited. Qwen Code has no
 *   switch for one of its servers that mcpctl does not share, so setup says plainly that
 *   those servers are started by Qwen and, once approved, by mcpctl too, and what to do.
 */
import path from 'node:path';
import { isObject } from '../../api/index.js';
import { named } from './entries.js';
import { appendAt, valueAt } from './jsonc-text.js';
import { reachEntry } from './reach.js';
import { loaded, newDraft, placeEntry, planOf, takeServers, type Draft } from './section.js';
import { ENTRY_NAME, type AgentFile, type AgentSetup, type SetupContext } from './types.js';

function paths(ctx: SetupContext): { user: string; workspace: string } {
  return {
    user: path.join(ctx.home, '.qwen', 'settings.json'),
    workspace: path.join(ctx.workspace, '.qwen', 'settings.json'),
  };
}

function names(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

function workspaceNote(draft: Draft, file: AgentFile | undefined): void {
  if (file?.kind !== 'text') return;
  const doc = loaded({ ...draft, refusals: [] }, file);
  const servers = doc === undefined ? undefined : doc.value.mcpServers;
  if (!isObject(servers) || Object.keys(servers).length === 0) return;
  draft.notes.push(
    `${file.path} (the repository's, not edited): Qwen Code has no way to skip one of its servers that mcpctl does not share (mcp.excluded would stop mcpctl too), so ${Object.keys(servers).map(named).join(', ')} start in Qwen Code AND, once approved, in mcpctl; to have them once, approve them in only one of the two, or move them to the folder's .mcp.json (mcpctl reads it, Qwen Code does not)`,
  );
}

export const QWEN: AgentSetup = {
  id: 'qwen',
  title: 'Qwen Code',
  files(ctx) {
    const p = paths(ctx);
    return [p.user, p.workspace];
  },
  plan(files, ctx) {
    const p = paths(ctx);
    const draft = newDraft();
    workspaceNote(draft, files.get(p.workspace));
    const user = loaded(draft, files.get(p.user));
    if (user === undefined) return planOf(draft, []);
    for (const list of ['allowed', 'excluded']) {
      const value = valueAt(user.value, ['mcp', list]);
      if (value !== undefined && names(value) === undefined)
        draft.refusals.push(
          `${p.user}: mcp.${list} is not a list of names; fix it, then run setup again`,
        );
    }
    const excluded = names(valueAt(user.value, ['mcp', 'excluded'])) ?? [];
    const allowed = names(valueAt(user.value, ['mcp', 'allowed']));
    if (excluded.includes(ENTRY_NAME))
      draft.refusals.push(
        `${p.user}: mcp.excluded names ${named(ENTRY_NAME)}, so Qwen Code would not start mcpctl; take it out, then run setup again`,
      );
    if (draft.refusals.length > 0) return planOf(draft, []);
    let text = takeServers(draft, {
      file: p.user,
      text: user.text,
      value: user.value,
      section: ['mcpServers'],
      where: 'mcpServers',
      to: 'user',
      syntax: 'settings',
      keep: (name) => {
        if (excluded.includes(name))
          return 'excluded by mcp.excluded, which gates Qwen Code and mcpctl alike: it starts nowhere';
        if (allowed !== undefined && !allowed.includes(name))
          return 'not in mcp.allowed, which gates Qwen Code and mcpctl alike: it starts nowhere';
        return undefined;
      },
    });
    text = placeEntry(
      draft,
      p.user,
      text,
      user.value,
      ['mcpServers'],
      reachEntry(ctx.reach, 'gemini', true),
    );
    if (allowed !== undefined && !allowed.includes(ENTRY_NAME))
      text = appendAt(text, ['mcp', 'allowed'], allowed.length, [ENTRY_NAME]);
    return planOf(draft, text === user.text ? [] : [{ path: p.user, text, newMode: 0o644 }]);
  },
};
