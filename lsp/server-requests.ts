/**
 * The answers to a language server's requests to its client. mcpctl is that client for every
 * agent session at once, and it is no editor: it has settings to give, no UI to show and no
 * files to write.
 *
 * Guarantees:
 * - `workspace/configuration`: one answer per item, from the server's `settings` (see
 *   `settingAt`); `null` for a section that is not there. The current settings are used: an
 *   edit reaches every later request.
 * - `client/registerCapability` and `client/unregisterCapability` are accepted and remembered
 *   (`registered(method)`), so a capability a server registers late (pull diagnostics) is seen;
 *   at most `MAX_REGISTRATIONS` at once: past that a registration is refused with an error and
 *   a note (a server registering without end must not grow the daemon every agent shares).
 * - `window/workDoneProgress/create` is accepted; `window/showMessageRequest` is answered `null`
 *   (no action chosen: nobody is there to choose), its message kept as a note.
 * - `workspace/applyEdit` is refused, `{ applied: false, failureReason }`: mcpctl writes no files.
 * - `workspace/workspaceFolders` is the one workspace folder.
 * - Every other request gets MethodNotFound, at once (a server never waits on us).
 */
import path from 'node:path';
import {
  ErrorCodes,
  ResponseError,
  type ApplyWorkspaceEditResult,
  type ConfigurationItem,
  type Registration,
  type WorkspaceFolder,
} from 'vscode-languageserver-protocol/node';
import { uriOf } from './workspace-files.js';
import { isObject } from '../api/index.js';

/** Dynamic registrations a server may hold at once (real servers hold a handful). */
export const MAX_REGISTRATIONS = 1_000;

export const APPLY_EDIT_REFUSED =
  'mcpctl does not write files: rename and code actions are previews; apply the edits yourself';

/**
 * The value of `section` in `settings`: nested (`{"python": {"analysis": …}}` for
 * "python.analysis"), else a flat dotted key as VS Code settings files write it
 * (`"python.analysis": …`), else the flat keys under it gathered into one object
 * (`"python.analysis.strict": true` → `{ strict: true }`); `null` when none is there. No
 * section means all the settings.
 */
export function settingAt(settings: unknown, section: string | undefined): unknown {
  if (section === undefined || section === '') return settings ?? null;
  if (!isObject(settings)) return null;
  let value: unknown = settings;
  for (const part of section.split('.')) {
    value = isObject(value) && Object.hasOwn(value, part) ? value[part] : undefined;
    if (value === undefined) break;
  }
  if (value !== undefined) return value;
  if (Object.hasOwn(settings, section)) return settings[section];
  const prefix = `${section}.`;
  const gathered: Record<string, unknown> = {};
  let found = false;
  for (const [key, v] of Object.entries(settings)) {
    if (!key.startsWith(prefix)) continue;
    found = true;
    let target = gathered;
    const parts = key.slice(prefix.length).split('.');
    for (const part of parts.slice(0, -1)) {
      const next = target[part];
      target = target[part] = isObject(next) ? next : {};
    }
    target[parts[parts.length - 1]] = v;
  }
  return found ? gathered : null;
}

export interface ServerRequestsOptions {
  readonly workspaceFolder: string;
  /** The server's settings now (they may change while it runs). */
  readonly settings: () => unknown;
  /** Messages the server wanted someone to see. */
  readonly onNote: (note: string) => void;
}

/** The client side of a server's requests: what one connection answers. */
export class ServerRequests {
  readonly #options: ServerRequestsOptions;
  /** Dynamic registrations by id. */
  readonly #registrations = new Map<string, Registration>();
  /** A flood is said once in the notes, not once per refused request. */
  #refusedOnce = false;

  constructor(options: ServerRequestsOptions) {
    this.#options = options;
  }

  configuration(items: readonly ConfigurationItem[]): unknown[] {
    const settings = this.#options.settings();
    return items.map((item) => settingAt(settings, item.section));
  }

  /** Remembers `registrations`, all or none: past MAX_REGISTRATIONS the request is refused. */
  register(registrations: readonly Registration[]): void {
    const added = registrations.filter((r) => !this.#registrations.has(r.id)).length;
    if (this.#registrations.size + added > MAX_REGISTRATIONS) {
      const message = `mcpctl keeps at most ${MAX_REGISTRATIONS} dynamic registrations of a language server; unregister some first`;
      if (!this.#refusedOnce) this.#options.onNote(`refused client/registerCapability: ${message}`);
      this.#refusedOnce = true;
      throw new ResponseError(ErrorCodes.InvalidRequest, message);
    }
    for (const r of registrations) this.#registrations.set(r.id, r);
  }

  /** Registrations held now. */
  get registrationCount(): number {
    return this.#registrations.size;
  }

  unregister(ids: readonly string[]): void {
    for (const id of ids) this.#registrations.delete(id);
  }

  /** Whether the server registered `method` dynamically (and has not unregistered it). */
  registered(method: string): boolean {
    return [...this.#registrations.values()].some((r) => r.method === method);
  }

  showMessageRequest(message: string): null {
    this.#options.onNote(`the server asked: ${message} (no answer: mcpctl has no one to ask)`);
    return null;
  }

  applyEdit(label: string | undefined): ApplyWorkspaceEditResult {
    this.#options.onNote(
      `the server asked to apply an edit${label ? ` (${label})` : ''}: refused, ${APPLY_EDIT_REFUSED}`,
    );
    return { applied: false, failureReason: APPLY_EDIT_REFUSED };
  }

  workspaceFolders(): WorkspaceFolder[] {
    const folder = this.#options.workspaceFolder;
    return [{ uri: uriOf(folder), name: path.basename(folder) || folder }];
  }
}
