/**
 * What a decision is about: one gated server's exact config, named by its approval hash, and
 * how that config is shown to the person deciding.
 *
 * Guarantees:
 * - A subject is taken from one desired server at one moment; its `hash` is that config's
 *   approval hash, so a decision made with it is about exactly what was shown.
 * - A summary carries what a person needs to recognise the config and judge it (command, args,
 *   cwd, or the URL and OAuth endpoints; what else decides what runs: a gated file's env
 *   values, a language server's options and settings; which variables go where; the hash), as
 *   its file writes it: `${VAR}` text and variable names, never a variable's value
 *   (api/disclosure.ts). Its one line (`summaryLine`, which events and errors carry) names
 *   only what runs or is contacted, never an env value or option.
 * - A hash prefix (`--hash`) matches only when it is at least MIN_HASH_PREFIX hex digits and
 *   a prefix of the current hash; a server has one current config, so a long enough prefix is
 *   never ambiguous. Case is ignored.
 * - A language server's subject says its kind (`kind: LanguageServer`) and carries its own
 *   approval hash (kinds.ts); it is shown like a local command (command, args, workspace
 *   folder) with its initializationOptions, settings and extensions.
 */
import {
  approvalHashOf,
  disclosureOf,
  languageServerDisclosureOf,
  lspApprovalHashOf,
  type ApprovalHash,
  type Disclosure,
  type DesiredLanguageServer,
  type DesiredServer,
  type LanguageServerConfig,
  type McpServerConfig,
  type Scope,
  LANGUAGE_SERVER,
  type LanguageServerKindName,
} from '../api/index.js';

export interface ApprovalSubject {
  readonly name: string;
  readonly scope: Scope;
  readonly source: string;
  readonly hash: ApprovalHash;
  readonly config: McpServerConfig;
}

/** A language server as a decision names it (ApprovalSubject's counterpart). */
export interface LanguageServerSubject {
  readonly kind: LanguageServerKindName;
  readonly name: string;
  readonly scope: Scope;
  readonly source: string;
  readonly hash: ApprovalHash;
  readonly config: LanguageServerConfig;
}

/** A subject of either kind. */
export type AnySubject = ApprovalSubject | LanguageServerSubject;

export function languageServerSubjectOf(server: DesiredLanguageServer): LanguageServerSubject {
  return {
    kind: LANGUAGE_SERVER,
    name: server.name,
    scope: server.scope,
    source: server.source,
    hash: lspApprovalHashOf(server.config),
    config: server.config,
  };
}

export function subjectOf(server: DesiredServer): ApprovalSubject {
  return {
    name: server.name,
    scope: server.scope,
    source: server.source,
    hash: approvalHashOf(server.config),
    config: server.config,
  };
}

/**
 * A config as a person checks it before deciding: what it runs or contacts and what it sends
 * where, as the file writes it (`api/disclosure.ts`, the one description every surface shows).
 * No variable's value, no header or URL secret; of literal values only a gated file's env text.
 */
export interface SubjectSummary {
  /** Present for a language server only. */
  readonly kind?: LanguageServerKindName;
  readonly name: string;
  readonly scope: Scope;
  readonly source: string;
  readonly hash: string;
  readonly disclosure: Disclosure;
}

export function summaryOf(subject: AnySubject): SubjectSummary {
  if ('kind' in subject && subject.kind === LANGUAGE_SERVER) {
    return {
      kind: LANGUAGE_SERVER,
      name: subject.name,
      scope: subject.scope,
      source: subject.source,
      hash: subject.hash,
      disclosure: languageServerDisclosureOf(subject.config, subject.scope),
    };
  }
  return {
    name: subject.name,
    scope: subject.scope,
    source: subject.source,
    hash: subject.hash,
    disclosure: disclosureOf(subject.config, subject.scope),
  };
}

/**
 * One line naming what would run: `command "node" args ["s.js"] (hash 64hex)`, or the URL and
 * OAuth endpoints; the disclosure's `inputs` (env values, options) are left to the hash, so
 * events and errors carry none. Every value is JSON-quoted and escaped, so spaces, quotes and
 * control characters cannot make it read as something else.
 */
export function summaryLine(summary: SubjectSummary): string {
  const parts = summary.disclosure.fields.map(([label, value]) => `${label} ${value}`);
  return `${parts.join(' ')} (hash ${summary.hash})`;
}

/** Shortest `--hash` prefix accepted: short prefixes are too easy to match by chance. */
export const MIN_HASH_PREFIX = 8;

export type PinCheck = { readonly ok: true } | { readonly ok: false; readonly problem: string };

/** Whether `pin` (a `--hash` value) names `hash`; the problem says why not. */
export function checkPin(hash: ApprovalHash, pin: string): PinCheck {
  const prefix = pin.toLowerCase();
  if (!/^[0-9a-f]+$/.test(prefix))
    return { ok: false, problem: `--hash ${JSON.stringify(pin)} is not a hex hash prefix` };
  if (prefix.length < MIN_HASH_PREFIX)
    return {
      ok: false,
      problem: `--hash ${pin} is too short (give at least ${MIN_HASH_PREFIX} hex digits)`,
    };
  if (!hash.startsWith(prefix))
    return { ok: false, problem: `--hash ${pin} does not match the current config` };
  return { ok: true };
}
