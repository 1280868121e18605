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
 * - The workspace's `.qwen/settings.json` is the repository's: never edited. Each server of it
 *   that Qwen would start gets Qwen's own switch, a name in `mcp.excluded` of the *user*
 *   settings (Qwen joins every layer's list), and mcpctl's server file records that entry as
 *   Qwen Code's only (`qwenOnlyExcluded`), so mcpctl still serves the server, once approved. A
 *   server already excluded or left out of `mcp.allowed` (Qwen's and mcpctl's gating alike)
 *   starts nowhere and gets nothing. A workspace file setup cannot read is a refusal.
 */
import path from 'node:path';
import { isObject, joinGatingLists, namePatternTest } from '../../api/index.js';
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

/** What the repository's settings hold for Qwen: its servers' names and its gating lists. */
interface WorkspaceSide {
  readonly file: string;
  readonly servers: readonly string[];
  readonly excluded: readonly string[];
  readonly allowed: readonly string[] | undefined;
}

function workspaceSide(draft: Draft, file: AgentFile | undefined): WorkspaceSide | undefined {
  if (file === undefined || file.kind === 'absent') return undefined;
  const doc = loaded(draft, file);
  if (doc === undefined) return undefined;
  const servers = doc.value.mcpServers;
  if (servers !== undefined && !isObject(servers)) {
    draft.refusals.push(
      `${file.path}: mcpServers is not an object, so setup cannot tell which servers Qwen Code would start; fix it, then run setup again`,
    );
    return undefined;
  }
  const list = (key: string) => names(valueAt(doc.value, ['mcp', key]));
  return {
    file: file.path,
    servers: isObject(servers) ? Object.keys(servers) : [],
    excluded: list('excluded') ?? [],
    allowed: list('allowed'),
  };
}

/**
 * Why Qwen Code and mcpctl alike start no server of a name, given the gating lists in force
 * (names or globs, api/name-patterns.ts); undefined when both may start it.
 */
function gatedOut(
  excluded: readonly string[],
  allowed: readonly string[] | undefined,
): (name: string) => string | undefined {
  const excludes = namePatternTest(excluded);
  const allows = allowed === undefined ? () => true : namePatternTest(allowed);
  return (name) => {
    if (excludes(name))
      return 'excluded by mcp.excluded, which gates Qwen Code and mcpctl alike: it starts nowhere';
    if (!allows(name))
      return 'not in mcp.allowed, which gates Qwen Code and mcpctl alike: it starts nowhere';
    return undefined;
  };
}

/**
 * The repository's servers Qwen would start get Qwen's own switch (see the module doc): the
 * user's `mcp.excluded` gains each, and each is recorded as Qwen Code's only.
 */
function excludeForQwenOnly(
  draft: Draft,
  ws: WorkspaceSide,
  user: { readonly file: string; readonly excluded: readonly string[] },
  allowedByUser: readonly string[] | undefined,
  recorded: ReadonlySet<string>,
  text: string,
): string {
  const ours = (name: string) => recorded.has(name) && user.excluded.includes(name);
  // Over the user's and the repository's lists, joined as Qwen (and mcpctl) join them.
  const gate = gatedOut(
    joinGatingLists([user.excluded, ws.excluded]) ?? [],
    joinGatingLists([allowedByUser, ws.allowed]),
  );
  const add: string[] = [];
  const mark = (name: string) =>
    draft.moves.push({
      name,
      from: `${ws.file} mcpServers.${named(name)}`,
      to: 'qwenOnlyExcluded',
      entry: { from: ws.file },
    });
  for (const name of ws.servers) {
    if (name === ENTRY_NAME) continue;
    if (ours(name)) {
      mark(name); // recorded already: the planner adds nothing
      continue;
    }
    const out = gate(name);
    if (out !== undefined) {
      draft.notes.push(`${ws.file}: ${named(name)}: ${out}`);
      continue;
    }
    add.push(name);
    mark(name);
  }
  if (add.length === 0) return text;
  draft.notes.push(
    `${ws.file} (the repository's, not edited): ${add.map(named).join(', ')} now skipped by Qwen Code (mcp.excluded of ${user.file}, recorded in mcpctl's server file as Qwen Code's only) and served by mcpctl once you approve them`,
  );
  return appendAt(text, ['mcp', 'excluded'], user.excluded.length, add);
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
    const ws = workspaceSide(draft, files.get(p.workspace));
    const user = loaded(draft, files.get(p.user));
    if (user === undefined) return planOf(draft, []);
    for (const list of ['allowed', 'excluded']) {
      const value = valueAt(user.value, ['mcp', list]);
      if (value !== undefined && names(value) === undefined)
        draft.refusals.push(
          `${p.user}: mcp.${list} is not a list of names; fix it, then run setup again`,
        );
    }
    const excludedList = names(valueAt(user.value, ['mcp', 'excluded'])) ?? [];
    const allowed = names(valueAt(user.value, ['mcp', 'allowed']));
    // Entries are names or globs (`*`, `?`), as Qwen Code and mcpctl both read them.
    // Qwen-only entries (an earlier setup's, recorded in mcpctl's server file) do not stop mcpctl.
    const recorded = ctx.qwenOnlyExcluded ?? new Set<string>();
    const gate = gatedOut(
      excludedList.filter((e) => !recorded.has(e)),
      allowed,
    );
    if (namePatternTest(excludedList)(ENTRY_NAME))
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
      keep: gate,
    });
    text = placeEntry(
      draft,
      p.user,
      text,
      user.value,
      ['mcpServers'],
      reachEntry(ctx.reach, 'gemini', true),
    );
    if (allowed !== undefined && !namePatternTest(allowed)(ENTRY_NAME))
      text = appendAt(text, ['mcp', 'allowed'], allowed.length, [ENTRY_NAME]);
    if (ws !== undefined)
      text = excludeForQwenOnly(
        draft,
        ws,
        { file: p.user, excluded: excludedList },
        allowed,
        recorded,
        text,
      );
    return planOf(draft, text === user.text ? [] : [{ path: p.user, text, newMode: 0o644 }]);
  },
};
