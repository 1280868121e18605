/**
 * Claude Code (`mcpctl setup claude`). Where it keeps servers and how it skips one: see
 * cli/setup/AGENTS.md.
 *
 * Guarantees:
 * - User servers (`~/.claude.json` `mcpServers`) move to mcpctl's user server file; each
 *   folder's private ("local") servers (`~/.claude.json` `projects[path].mcpServers`) move to
 *   the server file's `projects[realpath]` (a folder that no longer exists keeps its own).
 *   Entries are copied as written: both files use the `.mcp.json` syntax.
 * - The workspace's shared `.mcp.json` is never edited: its servers go into
 *   `disabledMcpjsonServers` of `<ws>/.claude/settings.local.json` (Claude's private settings
 *   of the folder), which Claude reads before any approval, so it starts none of them; mcpctl
 *   reads `.mcp.json` itself, gated (each server once approved in mcpctl).
 * - `~/.claude.json` gets one `mcpctl` entry (`type: stdio` serve, or `type: http` with the
 *   token header).
 */
import { isObject } from '../../api/index.js';
import { named } from './entries.js';
import { appendAt, setAt, valueAt } from './jsonc-text.js';
import { reachEntry } from './reach.js';
import { loaded, newDraft, placeEntry, planOf, takeServers, type Draft } from './section.js';
import type { AgentFile, AgentSetup, FileChange, SetupContext } from './types.js';
import path from 'node:path';

function paths(ctx: SetupContext): { user: string; project: string; local: string } {
  return {
    user: path.join(ctx.home, '.claude.json'),
    project: path.join(ctx.workspace, '.mcp.json'),
    local: path.join(ctx.workspace, '.claude', 'settings.local.json'),
  };
}

/** `~/.claude.json`: servers out, mcpctl's entry in. */
function userFile(
  draft: Draft,
  file: AgentFile | undefined,
  ctx: SetupContext,
  at: string,
): FileChange[] {
  const doc = loaded(draft, file);
  if (doc === undefined) return [];
  let text = takeServers(draft, {
    file: at,
    text: doc.text,
    value: doc.value,
    section: ['mcpServers'],
    where: 'mcpServers',
    to: 'user',
    syntax: 'claude',
  });
  const projects = doc.value.projects;
  if (isObject(projects)) {
    for (const [folder, project] of Object.entries(projects)) {
      if (!isObject(project) || project.mcpServers === undefined) continue;
      const real = path.isAbsolute(folder) ? ctx.realpath(folder) : undefined;
      text = takeServers(draft, {
        file: at,
        text,
        value: doc.value,
        section: ['projects', folder, 'mcpServers'],
        where: `projects[${named(folder)}].mcpServers`,
        to: 'workspace',
        ...(real === undefined ? {} : { workspace: real }),
        syntax: 'claude',
        ...(real === undefined
          ? { keep: () => 'its folder does not exist (mcpctl keys servers by real path)' }
          : {}),
      });
    }
  }
  text = placeEntry(draft, at, text, doc.value, ['mcpServers'], reachEntry(ctx.reach, 'claude'));
  return text === doc.text ? [] : [{ path: at, text, newMode: 0o600 }];
}

/** `.mcp.json`'s servers into `disabledMcpjsonServers` of the folder's private settings. */
function projectFile(
  draft: Draft,
  files: ReadonlyMap<string, AgentFile>,
  p: ReturnType<typeof paths>,
): FileChange[] {
  const project = loaded(draft, files.get(p.project));
  if (project === undefined || !project.exists) return [];
  const servers = project.value.mcpServers;
  if (servers === undefined) return [];
  if (!isObject(servers)) {
    draft.refusals.push(
      `${p.project}: mcpServers is not an object of servers; fix the file, then run setup again`,
    );
    return [];
  }
  const names = Object.keys(servers);
  if (names.length === 0) return [];
  const local = loaded(draft, files.get(p.local));
  if (local === undefined) return [];
  const listed = valueAt(local.value, ['disabledMcpjsonServers']);
  if (
    listed !== undefined &&
    !(Array.isArray(listed) && listed.every((n) => typeof n === 'string'))
  ) {
    draft.refusals.push(
      `${p.local}: disabledMcpjsonServers is not a list of names; fix it, then run setup again`,
    );
    return [];
  }
  const already = listed ?? [];
  const missing = names.filter((n) => !already.includes(n));
  draft.notes.push(
    `${p.project} (shared, not edited): Claude Code starts none of ${names.map(named).join(', ')} (disabledMcpjsonServers in ${p.local}); mcpctl serves each once you approve it (mcpctl approve NAME)`,
  );
  if (missing.length === 0) return [];
  if (!local.exists)
    draft.notes.push(
      `${p.local} is new: it is this folder's private settings, not for the repository (Claude Code keeps it out of git when it makes one itself; make sure your .gitignore does)`,
    );
  const text =
    listed === undefined
      ? setAt(local.text, ['disabledMcpjsonServers'], missing)
      : appendAt(local.text, ['disabledMcpjsonServers'], already.length, missing);
  return [{ path: p.local, text, newMode: 0o644 }];
}

export const CLAUDE: AgentSetup = {
  id: 'claude',
  title: 'Claude Code',
  files(ctx) {
    const p = paths(ctx);
    return [p.user, p.project, p.local];
  },
  plan(files, ctx) {
    const p = paths(ctx);
    const draft = newDraft();
    const changes = [
      ...userFile(draft, files.get(p.user), ctx, p.user),
      ...projectFile(draft, files, p),
    ];
    draft.notes.push(
      `language servers: mcpctl serves ${path.join(ctx.workspace, '.lsp.json')} (the lsp_* tools, once approved); those of Claude Code plugins stay with Claude Code`,
      `other folders' .mcp.json: run setup there too; until then Claude Code starts their servers itself`,
    );
    return planOf(draft, changes);
  },
};
