/**
 * The restart-required gate (DESIGN §4 rule 15): an edit whose changed keys all need a restart
 * emits nothing, because a running session cannot apply it anyway.
 *
 * Guarantees:
 * - The schema is small and explicit; flattenSchema() turns it into dotted keys.
 * - isRestartRequiredKey() uses the longest matching prefix, so a leaf's own flag wins over its
 *   parent's; a key the schema does not know is hot-reloadable.
 * - `mcpServers`, `mcp.allowed`, `mcp.excluded` are hot; `mcp` and `mcp.serverCommand` stay
 *   restart-required (so `mcp.somethingNew` is restart-required through its parent).
 * - changedKeys() compares parsed documents, not text: key order, whitespace and comments never
 *   count. Objects are descended on either side, arrays and scalars compare whole.
 * - isHotChange(old, new) is true exactly when at least one changed key is hot. It compares a
 *   subtree that is hot throughout (`mcpServers`) as a whole instead of key by key.
 */
import { jsonEqual, isObject } from '../api/index.js';

export interface SettingDefinition {
  readonly requiresRestart: boolean;
  readonly properties?: Readonly<Record<string, SettingDefinition>>;
}

export type SettingsSchema = Readonly<Record<string, SettingDefinition>>;

/**
 * The part of the Qwen Code settings schema whose flags matter to mcpctl. Everything else is
 * unknown here and therefore hot, which is harmless: the session store only reacts to what
 * changes the server map or the gating lists.
 */
export const SETTINGS_SCHEMA: SettingsSchema = {
  mcpServers: { requiresRestart: false },
  mcp: {
    requiresRestart: true,
    properties: {
      serverCommand: { requiresRestart: true },
      allowed: { requiresRestart: false },
      excluded: { requiresRestart: false },
    },
  },
  security: {
    requiresRestart: true,
    properties: {
      folderTrust: {
        requiresRestart: true,
        properties: {
          // Qwen Code needs a restart here; a daemon never restarts for a session, and turning
          // folder trust on must take servers of untrusted folders down now, so it is hot.
          enabled: { requiresRestart: false },
        },
      },
    },
  },
  tools: {
    requiresRestart: false,
    properties: {
      sandbox: { requiresRestart: true },
      discoveryCommand: { requiresRestart: true },
      callCommand: { requiresRestart: true },
    },
  },
  general: {
    requiresRestart: false,
    properties: { checkpointing: { requiresRestart: true } },
  },
  ui: { requiresRestart: false, properties: { theme: { requiresRestart: false } } },
};

/** Dotted key → requiresRestart, for every node of the schema (parents included). */
export function flattenSchema(schema: SettingsSchema, prefix = ''): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const [key, def] of Object.entries(schema)) {
    const dotted = prefix === '' ? key : `${prefix}.${key}`;
    out.set(dotted, def.requiresRestart);
    if (def.properties) {
      for (const [k, v] of flattenSchema(def.properties, dotted)) out.set(k, v);
    }
  }
  return out;
}

const FLAT = flattenSchema(SETTINGS_SCHEMA);

/** Longest-prefix match over the flattened schema; unknown keys are hot (false). */
export function isRestartRequiredKey(
  key: string,
  flat: ReadonlyMap<string, boolean> = FLAT,
): boolean {
  const parts = key.split('.');
  for (let len = parts.length; len > 0; len--) {
    const flag = flat.get(parts.slice(0, len).join('.'));
    if (flag !== undefined) return flag;
  }
  return false;
}

const NOTHING = Object.freeze(Object.create(null) as Record<string, unknown>);

function own(record: Readonly<Record<string, unknown>>, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/**
 * Collects changed dotted keys into `out`. A prefix for which `whole` is true is compared as one
 * value and reported as itself, without descending.
 */
function collectChangedKeys(
  before: unknown,
  after: unknown,
  prefix: string,
  out: string[],
  whole?: (prefix: string) => boolean,
): void {
  // Documents share unchanged subtrees (structural-sharing.ts): most keys stop here.
  if (before === after) return;
  if (prefix !== '' && whole?.(prefix)) {
    if (!jsonEqual(before, after)) out.push(prefix);
    return;
  }
  if (isObject(before) || isObject(after)) {
    const a = isObject(before) ? before : NOTHING;
    const b = isObject(after) ? after : NOTHING;
    const found = out.length;
    const child = (key: string) => (prefix === '' ? key : `${prefix}.${key}`);
    for (const key of Object.keys(a))
      collectChangedKeys(a[key], own(b, key), child(key), out, whole);
    for (const key of Object.keys(b)) {
      if (!Object.prototype.hasOwnProperty.call(a, key))
        collectChangedKeys(undefined, b[key], child(key), out, whole);
    }
    if (out.length === found && prefix !== '' && !jsonEqual(before, after)) out.push(prefix);
    return;
  }
  if (jsonEqual(before, after)) return;
  // A scalar or array replaced at the top of the document has no key of its own.
  out.push(prefix === '' ? '<root>' : prefix);
}

/**
 * The dotted keys whose values differ between two parsed documents. A key holding an object on
 * either side is descended into; when that yields nothing although the values differ (e.g. `{}`
 * appeared where there was nothing), the key itself is reported.
 */
export function changedKeys(before: unknown, after: unknown, prefix = ''): string[] {
  const out: string[] = [];
  collectChangedKeys(before, after, prefix, out);
  return out;
}

/**
 * True when every key at or below `prefix` is hot: its own flag and every flag below it are
 * false (`mcpServers`, an unknown key). Any change in such a subtree is hot, so the gate need
 * not find which of its ten thousand entries changed.
 */
export function isHotSubtree(prefix: string, flat: ReadonlyMap<string, boolean> = FLAT): boolean {
  if (isRestartRequiredKey(prefix, flat)) return false;
  for (const [key, restart] of flat) if (restart && key.startsWith(`${prefix}.`)) return false;
  return true;
}

/** True when the edit from `before` to `after` touches at least one hot key. */
export function isHotChange(
  before: unknown,
  after: unknown,
  flat: ReadonlyMap<string, boolean> = FLAT,
): boolean {
  const out: string[] = [];
  collectChangedKeys(before, after, '', out, (prefix) => isHotSubtree(prefix, flat));
  return out.some((key) => !isRestartRequiredKey(key, flat));
}
