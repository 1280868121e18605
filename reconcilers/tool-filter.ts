/**
 * Tool filters of a server entry (`includeTools`, `excludeTools`), applied to the live tool
 * list without reconnecting. `excludeTools` wins; an entry may be `name` or `name(...)`
 * (Qwen/Gemini allow a call pattern; only the name part is matched here).
 */
import type { McpServerConfig } from '../api/index.js';

function baseName(entry: string): string {
  const paren = entry.indexOf('(');
  return (paren >= 0 ? entry.slice(0, paren) : entry).trim();
}

export function toolFilterOf(config: McpServerConfig): (toolName: string) => boolean {
  const include = config.includeTools ? new Set(config.includeTools.map(baseName)) : undefined;
  const exclude = new Set((config.excludeTools ?? []).map(baseName));
  return (toolName) => !exclude.has(toolName) && (include === undefined || include.has(toolName));
}
