/**
 * mcpctl's own server file: where the user's one is, what it holds and how it is validated.
 * Agent-neutral, in the `.mcp.json` shape (DESIGN §1 "server file"): the informers read it as a
 * source of every session, `mcpctl add`/`remove` and `mcpctl setup` write it (server-file-edit.ts).
 *
 * Guarantees:
 * - The user's file is `$MCPCTL_SERVERS_PATH` when set and not empty, else
 *   `<home>/.mcpctl/mcp.json`; always an absolute path.
 * - `mcpServers` is validated exactly as a `.mcp.json`'s (schema.ts with the Claude shape
 *   normalised, transport.ts): both entry shapes, the same name rules, the same messages.
 * - `projects` maps the absolute real path of a workspace to `{ "mcpServers": { … } }`: servers
 *   for that workspace's sessions only. A key that is not an absolute path, or that holds a
 *   character not shown as itself, is an error naming the key (escaped) and the fix; an entry's
 *   issues carry their full path (`projects["/ws"].mcpServers.fs.args: …`). Other keys of a
 *   project entry, and other top-level keys, are ignored (Claude's files carry many).
 * - `qwenOnlyExcluded` maps a server name to a note of why (`{ "from": FILE }`): the names that
 *   `mcpctl setup qwen` wrote into `mcp.excluded` of Qwen Code's user settings to keep Qwen from
 *   starting a repository's server that mcpctl serves. Those entries of that one file keep Qwen
 *   Code from starting the server, not mcpctl (informers/desired-state.ts). A name is checked as
 *   a server name is; anything else there is an error naming the key and the fix.
 * - Any error makes the whole document invalid for its reader (keep-last-good); warnings
 *   (unknown fields) never do.
 * - The document is taken as immutable; validation of unchanged sections is cached (schema.ts).
 */
import path from 'node:path';
import { quoted, UNSHOWN } from './escape.js';
import { isObject } from './is-object.js';
import { describeType } from './redact.js';
import {
  serverNameIssue,
  validateSourceDocument,
  type ConfigIssue,
  type ConfigPath,
} from './schema.js';
import type { McpServerConfig } from './server-config.js';
import { normalizeServerConfig } from './transport.js';

/** The variable that moves the user's server file (tests, a second profile). */
export const SERVERS_PATH_ENV = 'MCPCTL_SERVERS_PATH';

/** `$MCPCTL_SERVERS_PATH`, else `<home>/.mcpctl/mcp.json`, absolute. */
export function userServerFilePath(
  home: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const override = env[SERVERS_PATH_ENV];
  if (override !== undefined && override !== '') return path.resolve(override);
  return path.join(path.resolve(home), '.mcpctl', 'mcp.json');
}

/** What mcpctl takes from a server file. */
export interface ServerFileContent {
  /** The top level's servers; absent when the file has no `mcpServers`. */
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  /** Per workspace real path, that workspace's servers (null-prototype maps). */
  readonly projects?: Readonly<Record<string, Readonly<Record<string, McpServerConfig>>>>;
  /** Names of Qwen's user `mcp.excluded` that are for Qwen Code only (see the module doc). */
  readonly qwenOnlyExcluded?: readonly string[];
}

/** The key of the Qwen-only exclusions, and how setup writes one. */
export const QWEN_ONLY_EXCLUDED = 'qwenOnlyExcluded';

export interface ServerFileValidation {
  readonly content: ServerFileContent;
  readonly errors: readonly ConfigIssue[];
  readonly warnings: readonly ConfigIssue[];
}

/** `projects["/ws"]`: the path of one project entry, its key shown escaped. */
export function projectWhere(workspace: string): string {
  return `projects[${quoted(workspace)}]`;
}

/** Why `key` cannot be a key of `projects`, or undefined for a good one. */
function projectKeyIssue(key: string): ConfigIssue | undefined {
  const where = projectWhere(key);
  if (UNSHOWN.test(key))
    return {
      path: ['projects', key],
      message: `${where}: a workspace key must not hold control characters; replace it with the workspace's absolute path`,
    };
  if (!path.isAbsolute(key))
    return {
      path: ['projects', key],
      message: `${where}: a workspace key must be an absolute path (the workspace's real path, as \`mcpctl add --scope local\` writes it); replace it with one`,
    };
  return undefined;
}

/** An issue of `{ mcpServers }` validated alone, moved under `projects[key]`. */
function underProject(key: string, issue: ConfigIssue): ConfigIssue {
  return {
    path: ['projects', key, ...issue.path],
    message: `${projectWhere(key)}.${issue.message}`,
  };
}

function validateProjects(
  projects: unknown,
  errors: ConfigIssue[],
  warnings: ConfigIssue[],
): Record<string, Record<string, McpServerConfig>> | undefined {
  if (!isObject(projects)) {
    errors.push({
      path: ['projects'],
      message: `projects: expected an object mapping workspace paths to { "mcpServers": { … } }, got ${describeType(projects)}`,
    });
    return undefined;
  }
  const out = Object.create(null) as Record<string, Record<string, McpServerConfig>>;
  for (const key of Object.keys(projects)) {
    const badKey = projectKeyIssue(key);
    if (badKey !== undefined) {
      errors.push(badKey);
      continue;
    }
    const entry = projects[key];
    if (!isObject(entry)) {
      errors.push({
        path: ['projects', key] satisfies ConfigPath,
        message: `${projectWhere(key)}: expected an object such as { "mcpServers": { … } }, got ${describeType(entry)}`,
      });
      continue;
    }
    if (entry.mcpServers === undefined) continue;
    const v = validateSourceDocument({ mcpServers: entry.mcpServers }, normalizeServerConfig);
    errors.push(...v.errors.map((issue) => underProject(key, issue)));
    warnings.push(...v.warnings.map((issue) => underProject(key, issue)));
    if (v.content.mcpServers !== undefined) out[path.resolve(key)] = v.content.mcpServers;
  }
  return out;
}

function validateQwenOnlyExcluded(value: unknown, errors: ConfigIssue[]): string[] | undefined {
  if (!isObject(value)) {
    errors.push({
      path: [QWEN_ONLY_EXCLUDED],
      message: `${QWEN_ONLY_EXCLUDED}: expected an object mapping server names to { "from": FILE } (\`mcpctl setup qwen\` writes it), got ${describeType(value)}; remove the key, then run \`mcpctl setup qwen\` again`,
    });
    return undefined;
  }
  const names: string[] = [];
  for (const name of Object.keys(value)) {
    const bad = serverNameIssue(name, [QWEN_ONLY_EXCLUDED]);
    if (bad !== undefined) errors.push(bad);
    else names.push(name);
  }
  return names.sort();
}

/** Validates a parsed server file (see the module doc); `undefined` (empty file) is empty. */
export function validateServerFileDocument(document: unknown): ServerFileValidation {
  if (document === undefined || document === null) return { content: {}, errors: [], warnings: [] };
  if (!isObject(document)) {
    return {
      content: {},
      errors: [
        {
          path: [],
          message: `expected a JSON object such as { "mcpServers": { … } } at the top of the file, got ${describeType(document)}`,
        },
      ],
      warnings: [],
    };
  }
  const top = validateSourceDocument({ mcpServers: document.mcpServers }, normalizeServerConfig);
  const errors: ConfigIssue[] = [...top.errors];
  const warnings: ConfigIssue[] = [...top.warnings];
  const projects =
    document.projects === undefined
      ? undefined
      : validateProjects(document.projects, errors, warnings);
  const qwenOnly =
    document[QWEN_ONLY_EXCLUDED] === undefined
      ? undefined
      : validateQwenOnlyExcluded(document[QWEN_ONLY_EXCLUDED], errors);
  const content: ServerFileContent = {
    ...(top.content.mcpServers === undefined ? {} : { mcpServers: top.content.mcpServers }),
    ...(projects === undefined ? {} : { projects }),
    ...(qwenOnly === undefined ? {} : { qwenOnlyExcluded: qwenOnly }),
  };
  return { content, errors, warnings };
}

/** The servers the file gives one workspace (its real path) above its top level, if any. */
export function workspaceServers(
  content: ServerFileContent,
  workspace: string,
): Readonly<Record<string, McpServerConfig>> | undefined {
  const projects = content.projects;
  if (projects === undefined) return undefined;
  const key = path.resolve(workspace);
  return Object.hasOwn(projects, key) ? projects[key] : undefined;
}
