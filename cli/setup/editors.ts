/**
 * VS Code (`mcpctl setup vscode`) and Cursor (`mcpctl setup cursor`). Where they keep servers
 * and how they skip one: see cli/setup/AGENTS.md.
 *
 * Guarantees:
 * - The user's servers (VS Code: the profile's `mcp.json`, `servers`; Cursor:
 *   `~/.cursor/mcp.json`, `mcpServers`) move to mcpctl's user server file, `${env:NAME}`
 *   written `${NAME}` (Cursor's `${userHome}` as `${HOME}`); an entry with an input
 *   (`${input:…}`), another editor variable, `envFile` or `dev` is refused by name: mcpctl
 *   could not start it as the editor does.
 * - The user file gets one `mcpctl` entry (VS Code: `type: stdio` / `type: http` with the
 *   token header; Cursor: `command` / `url` with the header).
 * - The workspace's `.vscode/mcp.json` / `.cursor/mcp.json` are the repository's: never edited,
 *   their servers not moved (mcpctl does not read those files, and a user file would skip
 *   their approval). Neither editor has a file where setup could turn one of them off (their
 *   switches live in the editor's own state), so they keep starting them themselves, once,
 *   and setup says so.
 */
import path from 'node:path';
import { isObject } from '../../api/index.js';
import { convertEditorVariables, editorVariable, named } from './entries.js';
import { reachEntry, type EntryStyle } from './reach.js';
import { loaded, newDraft, placeEntry, planOf, takeServers, type Draft } from './section.js';
import type { AgentFile, AgentId, AgentSetup, SetupContext } from './types.js';

interface Editor {
  readonly id: AgentId;
  readonly title: string;
  readonly style: EntryStyle;
  /** The key of the servers' map. */
  readonly section: string;
  user(ctx: SetupContext): string;
  workspace(ctx: SetupContext): string;
  /** Variables beyond `${env:NAME}` the editor has and the server file can say. */
  readonly variables: Readonly<Record<string, string>>;
}

function repositoryNote(draft: Draft, e: Editor, file: AgentFile | undefined): void {
  if (file?.kind !== 'text') return;
  const doc = loaded({ ...draft, refusals: [] }, file);
  const servers = doc?.value[e.section];
  if (!isObject(servers) || Object.keys(servers).length === 0) return;
  draft.notes.push(
    `${file.path} (the repository's, not edited): ${e.title} keeps starting ${Object.keys(servers).map(named).join(', ')} itself, once; it has no setting in a file that turns one of them off, and mcpctl does not read that file`,
  );
}

function editorSetup(e: Editor): AgentSetup {
  return {
    id: e.id,
    title: e.title,
    files: (ctx) => [e.user(ctx), e.workspace(ctx)],
    plan(files, ctx) {
      const draft = newDraft();
      repositoryNote(draft, e, files.get(e.workspace(ctx)));
      const at = e.user(ctx);
      const user = loaded(draft, files.get(at));
      if (user === undefined) return planOf(draft, []);
      const variable = editorVariable(e.variables);
      let text = takeServers(draft, {
        file: at,
        text: user.text,
        value: user.value,
        section: [e.section],
        where: e.section,
        to: 'user',
        syntax: (where, entry) => convertEditorVariables(where, entry, variable),
      });
      text = placeEntry(draft, at, text, user.value, [e.section], reachEntry(ctx.reach, e.style));
      return planOf(draft, text === user.text ? [] : [{ path: at, text, newMode: 0o644 }]);
    },
  };
}

/** VS Code's user folder: `~/.config/Code/User` (Linux), `~/Library/Application Support/Code/User` (macOS). */
function vscodeUser(home: string): string {
  return process.platform === 'darwin'
    ? path.join(home, 'Library', 'Application Support', 'Code', 'User')
    : path.join(home, '.config', 'Code', 'User');
}

export const VSCODE = editorSetup({
  id: 'vscode',
  title: 'VS Code',
  style: 'vscode',
  section: 'servers',
  user: (ctx) => path.join(vscodeUser(ctx.home), 'mcp.json'),
  workspace: (ctx) => path.join(ctx.workspace, '.vscode', 'mcp.json'),
  variables: { userHome: '${HOME}' },
});

export const CURSOR = editorSetup({
  id: 'cursor',
  title: 'Cursor',
  style: 'cursor',
  section: 'mcpServers',
  user: (ctx) => path.join(ctx.home, '.cursor', 'mcp.json'),
  workspace: (ctx) => path.join(ctx.workspace, '.cursor', 'mcp.json'),
  variables: { userHome: '${HOME}' },
});
