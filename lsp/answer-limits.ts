/**
 * How much of a server's answer an agent gets: at most MAX_ANSWER_ITEMS locations, symbols or
 * diagnostics per answer, the first ones in the server's order, with `truncated` saying how
 * many there were. A popular symbol's references in a large repository run to tens of
 * thousands; all of them would flood the agent's context and have the daemon every agent
 * shares read every file they are in, to no one's use. Cut before anything is read or
 * converted.
 *
 * Guarantees: an answer within the limit is returned as it is, with no `truncated`; a tree
 * (document symbols) counts every node, parents before their children, and keeps the first
 * MAX_ANSWER_ITEMS of that order with their nesting; a rename preview is never cut (a partial
 * rename applied would break the code), so it has no limit here. The files one answer reads to
 * quote lines and convert positions hold at most MAX_QUOTED_BYTES together (answer-texts.ts).
 */

/** Items per answer. */
export const MAX_ANSWER_ITEMS = 500;

/**
 * Bytes of files one answer reads for its lines, 32 MiB: two files of the largest a server is
 * sent, or 500 files of 64 KiB. Past it, locations are answered without their line's text, so
 * parallel answers cannot grow the daemon every agent shares by much.
 */
export const MAX_QUOTED_BYTES = 32 * 1024 * 1024;

/** Said with an answer that was cut: how many there were, and how many are shown. */
export interface Truncated {
  readonly total: number;
  readonly shown: number;
}

/** The first `max` of `items`, and what was cut when anything was. */
export function firstItems<T>(
  items: readonly T[],
  max = MAX_ANSWER_ITEMS,
): { items: T[]; truncated?: Truncated } {
  if (items.length <= max) return { items: [...items] };
  return { items: items.slice(0, max), truncated: { total: items.length, shown: max } };
}

/** A tree node with optional children (document symbols). */
export interface TreeNode<N> {
  readonly children?: readonly N[];
}

/** Nodes in `nodes`' trees, all levels. */
function countNodes<N extends TreeNode<N>>(nodes: readonly N[]): number {
  let n = 0;
  for (const node of nodes) n += 1 + countNodes(node.children ?? []);
  return n;
}

/**
 * The first `max` nodes of `nodes`' trees in pre-order (parents first), nesting kept; `cut`
 * makes a node with only the kept children (none: no `children`).
 */
export function firstNodes<N extends TreeNode<N>>(
  nodes: readonly N[],
  cut: (node: N, children: N[] | undefined) => N,
  max = MAX_ANSWER_ITEMS,
): { items: N[]; truncated?: Truncated } {
  const total = countNodes(nodes);
  if (total <= max) return { items: [...nodes] };
  let left = max;
  const take = (level: readonly N[]): N[] => {
    const kept: N[] = [];
    for (const node of level) {
      if (left <= 0) break;
      left -= 1;
      const children = node.children && node.children.length > 0 ? take(node.children) : [];
      kept.push(cut(node, children.length > 0 ? children : undefined));
    }
    return kept;
  };
  return { items: take(nodes), truncated: { total, shown: max } };
}
