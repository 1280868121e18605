/**
 * mcpctl's server file as setup uses it: every read and write through api/'s server file
 * editor (server-file-edit.ts, server-file-entries.ts), so the file is validated, written
 * atomically, 0600, with comments kept, exactly as `mcpctl add` writes it.
 *
 * Guarantees:
 * - `plan` is the editor's text edit (api/jsonc-edit.ts) of the text read, so the dry run shows
 *   the bytes the real run writes.
 * - A moved server whose name the file already holds: equal, it is not added again; another
 *   config, it is a refusal naming the place and what to do.
 * - `remove` takes out only entries that still equal what setup added; any other is named
 *   and kept (the user changed it since). `dropIfEmpty` removes a file left with nothing.
 */
import { rm } from 'node:fs/promises';
import {
  editServerFile,
  isObject,
  jsonEqual,
  QWEN_ONLY_EXCLUDED,
  readServerFile,
  serverPath,
  serverWhere,
  setValue,
  userServerFilePath,
  type ConfigPath,
  type ServerFileEditor,
} from '../../api/index.js';
import { parseConfig } from './jsonc-text.js';
import type { ServerFileSide } from './planner.js';
import type { MovedServer } from './types.js';

function valueAtPath(root: unknown, where: ReadonlyArray<string | number>): unknown {
  let value = root;
  for (const key of where) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

/** A workspace's part left with no server goes, and `projects` when empty (as `remove` does). */
function dropEmptyProject(editor: ServerFileEditor, workspace: string): void {
  const project = editor.valueAt(['projects', workspace]);
  const servers = editor.valueAt(['projects', workspace, 'mcpServers']);
  if (
    isObject(project) &&
    isObject(servers) &&
    Object.keys(servers).length === 0 &&
    Object.keys(project).length === 1
  )
    editor.remove(['projects', workspace]);
  const projects = editor.valueAt(['projects']);
  if (isObject(projects) && Object.keys(projects).length === 0) editor.remove(['projects']);
}

/** A map left empty goes (setup made it; undo ends it). */
function dropIfEmptyMap(editor: ServerFileEditor, at: ConfigPath): void {
  const map = editor.valueAt(at);
  if (isObject(map) && Object.keys(map).length === 0) editor.remove(at);
}

export function serverFileSide(home: string, env: NodeJS.ProcessEnv = process.env): ServerFileSide {
  const file = userServerFilePath(home, env);
  const where = (m: MovedServer): ConfigPath =>
    m.to === 'qwenOnlyExcluded'
      ? [QWEN_ONLY_EXCLUDED, m.name]
      : serverPath(m.name, m.to === 'workspace' ? m.workspace : undefined);
  return {
    path: file,
    async read() {
      const read = await readServerFile(file);
      return { exists: read.exists, text: read.text };
    },
    qwenOnlyExcluded(text) {
      const parsed = parseConfig(file, text);
      const records = parsed.ok ? valueAtPath(parsed.value, [QWEN_ONLY_EXCLUDED]) : undefined;
      return new Set(isObject(records) ? Object.keys(records) : []);
    },
    plan(text, moves) {
      let next = text;
      const added: MovedServer[] = [];
      const refusals: string[] = [];
      // read() had the editor parse and validate it: this parse of the same text succeeds.
      const parsed = parseConfig(file, text);
      const document = parsed.ok ? parsed.value : {};
      for (const m of moves) {
        const at = where(m);
        const existing = valueAtPath(document, at);
        // A name recorded already (this folder's setup or another's): Qwen-only either way.
        if (existing !== undefined && m.to === 'qwenOnlyExcluded') continue;
        if (existing !== undefined) {
          if (!jsonEqual(existing, m.entry))
            refusals.push(
              `${file}: ${serverWhere(m.name, m.workspace)} already holds another server of that name (moving ${m.from}); rename one of them, then run setup again`,
            );
          continue;
        }
        next = setValue(next, at, m.entry);
        added.push(m);
      }
      return { text: next, added, refusals };
    },
    async add(moves) {
      await editServerFile(file, (editor) => {
        for (const m of moves) editor.set(where(m), m.entry);
      });
    },
    async remove(moves) {
      const kept: string[] = [];
      await editServerFile(file, (editor) => {
        for (const m of moves) {
          const at = where(m);
          const now = editor.valueAt(at);
          if (now === undefined) continue;
          if (!jsonEqual(now, m.entry)) {
            kept.push(
              `${file}: ${serverWhere(m.name, m.workspace)} (changed since setup added it)`,
            );
            continue;
          }
          editor.remove(at);
          if (m.to === 'workspace' && m.workspace !== undefined)
            dropEmptyProject(editor, m.workspace);
          if (m.to === 'qwenOnlyExcluded') dropIfEmptyMap(editor, [QWEN_ONLY_EXCLUDED]);
        }
      });
      return kept;
    },
    async dropIfEmpty() {
      const read = await readServerFile(file);
      if (!read.exists) return;
      const parsed = parseConfig(file, read.text);
      if (!parsed.ok || !isObject(parsed.value)) return;
      const keys = Object.keys(parsed.value);
      const servers = parsed.value.mcpServers;
      if (
        keys.every((k) => k === 'mcpServers') &&
        (servers === undefined || (isObject(servers) && Object.keys(servers).length === 0))
      )
        await rm(file);
    },
  };
}
