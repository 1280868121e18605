import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstItems, firstNodes, MAX_ANSWER_ITEMS } from './answer-limits.js';

interface Node {
  readonly name: string;
  readonly children?: Node[];
}
const cut = (node: Node, children: Node[] | undefined): Node => ({
  name: node.name,
  ...(children ? { children } : {}),
});

test('a list within the limit is kept whole and says nothing', () => {
  const list = Array.from({ length: MAX_ANSWER_ITEMS }, (_, i) => i);
  assert.deepEqual(firstItems(list), { items: list });
});

test('a list over the limit keeps its first items and says how many there were', () => {
  const list = Array.from({ length: 20_000 }, (_, i) => i);
  const { items, truncated } = firstItems(list);
  assert.equal(items.length, MAX_ANSWER_ITEMS);
  assert.deepEqual(items.slice(0, 3), [0, 1, 2]);
  assert.deepEqual(truncated, { total: 20_000, shown: MAX_ANSWER_ITEMS });
  assert.deepEqual(firstItems([1, 2, 3], 2), { items: [1, 2], truncated: { total: 3, shown: 2 } });
});

test('a tree is cut in pre-order: parents before children, nesting kept', () => {
  const tree: Node[] = [
    { name: 'A', children: [{ name: 'a1' }, { name: 'a2', children: [{ name: 'a2x' }] }] },
    { name: 'B', children: [{ name: 'b1' }] },
  ];
  assert.deepEqual(firstNodes(tree, cut, 10), { items: tree });
  assert.deepEqual(firstNodes(tree, cut, 4), {
    items: [{ name: 'A', children: [{ name: 'a1' }, { name: 'a2', children: [{ name: 'a2x' }] }] }],
    truncated: { total: 6, shown: 4 },
  });
  assert.deepEqual(firstNodes(tree, cut, 3), {
    items: [{ name: 'A', children: [{ name: 'a1' }, { name: 'a2' }] }],
    truncated: { total: 6, shown: 3 },
  });
  assert.deepEqual(firstNodes(tree, cut, 1), {
    items: [{ name: 'A' }],
    truncated: { total: 6, shown: 1 },
  });
});

test('a deep or wide tree over the limit keeps exactly the limit of nodes', () => {
  let deep: Node = { name: 'leaf' };
  for (let i = 0; i < 2_000; i++) deep = { name: `n${i}`, children: [deep] };
  const wide: Node[] = Array.from({ length: 3_000 }, (_, i) => ({
    name: `w${i}`,
    children: [{ name: `c${i}` }],
  }));
  const count = (nodes: Node[]): number =>
    nodes.reduce((n, node) => n + 1 + count(node.children ?? []), 0);
  for (const tree of [[deep], wide]) {
    const { items, truncated } = firstNodes(tree, cut);
    assert.equal(count(items), MAX_ANSWER_ITEMS);
    assert.equal(truncated?.shown, MAX_ANSWER_ITEMS);
  }
});
