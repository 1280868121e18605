/**
 * Repeated keys in a JSONC syntax tree (JSON allows them; the last one wins).
 *
 * Guarantees: every occurrence after the first of a key in the same object is listed, at any
 * depth, in text order, with the offset of its key and its path (array items by index).
 */
import type { Node } from 'jsonc-parser';
import type { ConfigPath } from '../api/index.js';

export interface DuplicateKey {
  /** Offset of the repeated key in the text. */
  readonly offset: number;
  /** Path of the repeated key itself. */
  readonly path: ConfigPath;
}

export function duplicateKeys(node: Node): DuplicateKey[] {
  const out: DuplicateKey[] = [];
  const walk = (n: Node, path: ConfigPath): void => {
    if (n.type === 'object') {
      const seen = new Set<string>();
      for (const prop of n.children ?? []) {
        const [keyNode, valueNode] = prop.children ?? [];
        if (keyNode === undefined) continue;
        const key = String(keyNode.value);
        if (seen.has(key)) out.push({ offset: keyNode.offset, path: [...path, key] });
        seen.add(key);
        if (valueNode) walk(valueNode, [...path, key]);
      }
    } else if (n.type === 'array') {
      (n.children ?? []).forEach((child, i) => walk(child, [...path, i]));
    }
  };
  walk(node, []);
  return out;
}
