/**
 * One language server entry as `.lsp.json` / `--lsp-config` writes it (the format Qwen Code and
 * Claude Code plugins share: a top-level key per server), its zod shape and its type; and the
 * desired form of one such server in a session.
 *
 * A leaf like server-config.ts: validation (lsp-schema.ts), identity and expansion import the
 * type from here.
 *
 * Guarantees:
 * - Every known field is typed; unknown fields are kept (passthrough) so validation can report
 *   them as warnings. `command` and `extensionToLanguage` are required by validation, not by
 *   this shape, so one missing field gives one clear message instead of a zod dump.
 * - `transport` other than `stdio` is accepted by the shape and refused by validation with a
 *   message naming the field: mcpctl speaks to language servers over stdio only.
 */
import { z } from 'zod';
import type { LanguageServerKindName } from './kind-names.js';
import type { Scope } from './scope.js';

const stringRecord = z.record(z.string(), z.string());

export const languageServerConfigSchema = z
  .object({
    command: z.string().min(1),
    args: z.array(z.string()),
    env: stringRecord,
    /** `{".ts": "typescript"}`: the files it handles, and the languageId each is opened with. */
    extensionToLanguage: stringRecord,
    transport: z.enum(['stdio', 'socket', 'tcp']),
    host: z.string(),
    port: z.number().int(),
    path: z.string(),
    initializationOptions: z.unknown(),
    settings: z.unknown(),
    /** Relative to the workspace (or absolute inside it); default the workspace root. */
    workspaceFolder: z.string().min(1),
    startupTimeout: z.number().int().positive(),
    shutdownTimeout: z.number().int().positive(),
    restartOnCrash: z.boolean(),
    maxRestarts: z.number().int().nonnegative(),
    disabled: z.boolean(),
  })
  .partial()
  .passthrough();

/** One language server entry as written in a config file. */
export type LanguageServerConfig = z.infer<typeof languageServerConfigSchema>;

/** The scopes a language server can come from: the project's `.lsp.json` (gated) or `--lsp-config`. */
export type LanguageServerScope = Extract<Scope, 'project' | 'cli'>;

/** One language server of a session's desired set. */
export interface DesiredLanguageServer {
  readonly kind: LanguageServerKindName;
  readonly name: string;
  readonly config: LanguageServerConfig;
  readonly scope: LanguageServerScope;
  /** The file it was read from. */
  readonly source: string;
}

export type DesiredLanguageServers = Readonly<Record<string, DesiredLanguageServer>>;
