/**
 * Folder trust as Qwen Code defines it (DESIGN §1 "trusted").
 *
 * Guarantees:
 * - `$HOME/.qwen/trustedFolders.json` is `{ "<absolute path>": "TRUST_FOLDER" | "TRUST_PARENT" |
 *   "DO_NOT_TRUST" }`. Any other value is an error located at its key; a relative path is a
 *   warning and the rule is ignored (it could only match by accident).
 * - `TRUST_FOLDER` on P trusts P and everything below it; `TRUST_PARENT` on P does the same for
 *   P's parent; `DO_NOT_TRUST` on P distrusts P and everything below it.
 * - The most specific rule wins: the one whose (effective) path is the longest prefix of the
 *   workspace, by whole path segments (`/a/b` never matches `/a/bc`). On a tie distrust wins.
 * - With folder trust disabled every workspace is trusted; enabled and no rule matching means
 *   untrusted (the safe side: nothing connects until the user trusts the folder).
 * - Paths are compared after path.resolve() (no `..`, no trailing slash); the caller passes the
 *   workspace's realpath, rules are taken as written.
 */
import path from 'node:path';
import { describeType, type ConfigIssue } from '../api/index.js';

export const TRUST_LEVELS = ['TRUST_FOLDER', 'TRUST_PARENT', 'DO_NOT_TRUST'] as const;
export type TrustLevel = (typeof TRUST_LEVELS)[number];

export interface TrustRule {
  readonly path: string;
  readonly level: TrustLevel;
}

export interface TrustRulesValidation {
  readonly value: readonly TrustRule[];
  readonly errors: ConfigIssue[];
  readonly warnings: ConfigIssue[];
}

function isTrustLevel(value: unknown): value is TrustLevel {
  return typeof value === 'string' && (TRUST_LEVELS as readonly string[]).includes(value);
}

/** Validates a parsed trustedFolders.json document. */
export function validateTrustRules(doc: unknown): TrustRulesValidation {
  const errors: ConfigIssue[] = [];
  const warnings: ConfigIssue[] = [];
  const value: TrustRule[] = [];
  if (doc === undefined || doc === null) return { value, errors, warnings };
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    errors.push({
      path: [],
      message: `expected an object mapping folder paths to ${TRUST_LEVELS.join(' | ')}, got ${describeType(doc)}`,
    });
    return { value, errors, warnings };
  }
  for (const [folder, level] of Object.entries(doc as Record<string, unknown>)) {
    if (!isTrustLevel(level)) {
      errors.push({
        path: [folder],
        message: `${folder}: expected one of ${TRUST_LEVELS.map((l) => `"${l}"`).join(', ')}, got ${describeType(level)}`,
      });
      continue;
    }
    if (!path.isAbsolute(folder)) {
      warnings.push({
        path: [folder],
        message: `${folder}: not an absolute path, so the rule is ignored; write the full path`,
      });
      continue;
    }
    value.push({ path: path.resolve(folder), level });
  }
  return { value, errors, warnings };
}

/** True when `child` is `parent` or lies below it, by whole path segments. */
export function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export interface TrustDecision {
  readonly trusted: boolean;
  /** The rule that decided, when one did. */
  readonly rule?: TrustRule;
}

/** Which rule decides for `workspace`, following the module's guarantees. */
export function resolveTrust(rules: readonly TrustRule[], workspace: string): TrustDecision {
  const target = path.resolve(workspace);
  let best: { rule: TrustRule; depth: number; trusts: boolean } | undefined;
  for (const rule of rules) {
    const effective = rule.level === 'TRUST_PARENT' ? path.dirname(rule.path) : rule.path;
    if (!isWithin(target, effective)) continue;
    const depth = effective.split(path.sep).filter((s) => s !== '').length;
    const trusts = rule.level !== 'DO_NOT_TRUST';
    if (
      best === undefined ||
      depth > best.depth ||
      (depth === best.depth && !trusts && best.trusts)
    ) {
      best = { rule, depth, trusts };
    }
  }
  return best === undefined ? { trusted: false } : { trusted: best.trusts, rule: best.rule };
}

/** The session's trust: everything is trusted unless folder trust is enabled. */
export function isWorkspaceTrusted(
  folderTrustEnabled: boolean,
  rules: readonly TrustRule[],
  workspace: string,
): boolean {
  return folderTrustEnabled ? resolveTrust(rules, workspace).trusted : true;
}
