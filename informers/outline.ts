/**
 * The outline of a config text: where each property value of the top object sits, and for a value
 * that is itself an object (`mcpServers`, `mcp`, `ui`, …) where each of its property values sits.
 * That is what an incremental re-parse needs to find the one entry an edit touched.
 *
 * Guarantees:
 * - Offsets are UTF-16 offsets into the text the outline was made from; `ends` are exclusive and
 *   a value's span holds exactly its tokens (no surrounding whitespace or comments).
 * - Properties are in text order, so `starts` is ascending; keys are decoded (escapes resolved).
 * - Two levels only: `children[i]` is the outline of property i's value when that is an object
 *   at the top level, else undefined; at the second level `children` holds only undefined.
 */
import type { Node } from 'jsonc-parser';

export interface Outline {
  readonly keys: string[];
  readonly starts: number[];
  readonly ends: number[];
  readonly children: (Outline | undefined)[];
}

export function emptyOutline(): Outline {
  return { keys: [], starts: [], ends: [], children: [] };
}

/** The outline of an object node of a jsonc-parser tree (`levels` deep); undefined otherwise. */
export function outlineOfTree(node: Node, levels = 2): Outline | undefined {
  if (node.type !== 'object') return undefined;
  const outline = emptyOutline();
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (keyNode === undefined || valueNode === undefined) continue;
    outline.keys.push(String(keyNode.value));
    outline.starts.push(valueNode.offset);
    outline.ends.push(valueNode.offset + valueNode.length);
    outline.children.push(levels > 1 ? outlineOfTree(valueNode, levels - 1) : undefined);
  }
  return outline;
}

/** A copy with every offset moved by `delta` (for an outline made from a slice of the text). */
export function shiftedOutline(outline: Outline, delta: number): Outline {
  return {
    keys: outline.keys,
    starts: outline.starts.map((x) => x + delta),
    ends: outline.ends.map((x) => x + delta),
    children: outline.children.map((c) => (c === undefined ? undefined : shiftedOutline(c, delta))),
  };
}

/**
 * Index of the property whose value span holds all of [from, to], or -1. Binary search on the
 * ascending starts.
 */
export function enclosingProperty(outline: Outline, from: number, to: number): number {
  let lo = 0;
  let hi = outline.starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (outline.starts[mid] <= from) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found !== -1 && to <= outline.ends[found] ? found : -1;
}
