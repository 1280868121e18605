/**
 * Gemini CLI (`mcpctl setup gemini`). Where it keeps servers and how it skips one: see
 * cli/setup/AGENTS.md.
 *
 * Guarantees:
 * - User servers (`~/.gemini/settings.json` `mcpServers`) move to mcpctl's user server file,
 *   `$VAR` written `${VAR}` (entries.ts). A server Gemini does not start today stays where it
 *   is, so mcpctl does not start it either: excluded (`mcp.excluded`), left out of
 *   `mcp.allowed`, or disabled (`~/.gemini/mcp-server-enablement.json`), names compared as
 *   Gemini compares them (trimmed, lower case).
 * - `~/.gemini/settings.json` gets one `mcpctl` entry, and `mcp.allowed` (when the user has
 *   one) the name `mcpctl`, or Gemini would not start it.
 * - The workspace's `.gemini/settings.json` is the repository's: never edited, and its servers
 *   are not moved (copying them into a user file would skip their approval). mcpctl reads them
 *   there (gated); Gemini's global switch keeps Gemini from starting them too (gemini-project.ts).
 */
import path from 'node:path';
import { isObject } from '../../api/index.js';
import { named } from './entries.js';
import { disableProjectServers, geminiName as norm } from './gemini-project.js';
import { appendAt, valueAt } from './jsonc-text.js';
import { reachEntry } from './reach.js';
import { loaded, newDraft, placeEntry, planOf, takeServers, type Draft } from './section.js';
import { ENTRY_NAME, type AgentSetup, type SetupContext } from './types.js';

function paths(ctx: SetupContext): { user: string; enablement: string; workspace: string } {
  return {
    user: path.join(ctx.home, '.gemini', 'settings.json'),
    enablement: path.join(ctx.home, '.gemini', 'mcp-server-enablement.json'),
    workspace: path.join(ctx.workspace, '.gemini', 'settings.json'),
  };
}

function names(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/** Why Gemini does not start `name` today, or undefined when it does. */
function whyKept(
  user: Record<string, unknown>,
  enablement: Record<string, unknown>,
): (name: string) => string | undefined {
  const excluded = (names(valueAt(user, ['mcp', 'excluded'])) ?? []).map(norm);
  const allowed = names(valueAt(user, ['mcp', 'allowed']))?.map(norm);
  return (name) => {
    if (excluded.includes(norm(name)))
      return 'excluded by mcp.excluded, Gemini CLI starts it nowhere';
    if (allowed !== undefined && !allowed.includes(norm(name)))
      return 'not in mcp.allowed, Gemini CLI starts it nowhere';
    const state = enablement[norm(name)];
    if (isObject(state) && state.enabled === false)
      return 'disabled (gemini mcp disable), Gemini CLI starts it nowhere';
    return undefined;
  };
}

function checkLists(draft: Draft, file: string, user: Record<string, unknown>): boolean {
  for (const list of ['allowed', 'excluded']) {
    const value = valueAt(user, ['mcp', list]);
    if (value !== undefined && names(value) === undefined) {
      draft.refusals.push(
        `${file}: mcp.${list} is not a list of names; fix it, then run setup again`,
      );
      return false;
    }
  }
  if ((names(valueAt(user, ['mcp', 'excluded'])) ?? []).map(norm).includes(ENTRY_NAME)) {
    draft.refusals.push(
      `${file}: mcp.excluded names ${named(ENTRY_NAME)}, so Gemini CLI would not start mcpctl; take it out, then run setup again`,
    );
    return false;
  }
  return true;
}

export const GEMINI: AgentSetup = {
  id: 'gemini',
  title: 'Gemini CLI',
  files(ctx) {
    const p = paths(ctx);
    return [p.user, p.enablement, p.workspace];
  },
  plan(files, ctx) {
    const p = paths(ctx);
    const draft = newDraft();
    const user = loaded(draft, files.get(p.user));
    const enablement = loaded(draft, files.get(p.enablement));
    if (user === undefined || enablement === undefined || !checkLists(draft, p.user, user.value))
      return planOf(draft, []);
    const keep = whyKept(user.value, enablement.value);
    const switched = disableProjectServers(draft, {
      // A workspace that is the home: that file is the user file, handled below.
      file: p.workspace === p.user ? undefined : files.get(p.workspace),
      enablement: { path: p.enablement, text: enablement.text, value: enablement.value },
      whyKept: keep,
    });
    let text = takeServers(draft, {
      file: p.user,
      text: user.text,
      value: user.value,
      section: ['mcpServers'],
      where: 'mcpServers',
      to: 'user',
      syntax: 'settings',
      keep,
    });
    text = placeEntry(
      draft,
      p.user,
      text,
      user.value,
      ['mcpServers'],
      reachEntry(ctx.reach, 'gemini'),
    );
    const allowed = names(valueAt(user.value, ['mcp', 'allowed']));
    if (allowed !== undefined && !allowed.map(norm).includes(ENTRY_NAME))
      text = appendAt(text, ['mcp', 'allowed'], allowed.length, [ENTRY_NAME]);
    return planOf(draft, [
      ...(text === user.text ? [] : [{ path: p.user, text, newMode: 0o644 }]),
      ...(switched === enablement.text
        ? []
        : [{ path: p.enablement, text: switched, newMode: 0o644 }]),
    ]);
  },
};
