import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CALL_TOOL, FIND_TOOLS, META_TOOLS, findTools } from './meta-tools.js';
import { parseQualifiedName } from './tool-names.js';

const T = { timeout: 10_000 };

describe('meta tools', T, () => {
  it('have names no forwarded tool can have', T, () => {
    for (const t of META_TOOLS) {
      assert.equal(parseQualifiedName(t.name), undefined);
      assert.ok(!t.name.includes('__') && !t.name.startsWith('hint_'));
    }
    assert.deepEqual(
      META_TOOLS.map((t) => t.name),
      [FIND_TOOLS, CALL_TOOL],
    );
  });

  it('find matches every word, case-insensitively, in name, server or description', T, () => {
    const tools = [
      {
        name: 'fs__read_file',
        server: 'fs',
        description: 'Read a file',
        inputSchema: { type: 'object' as const },
      },
      {
        name: 'gh__search',
        server: 'gh',
        description: 'Search GitHub issues',
        inputSchema: { type: 'object' as const },
      },
    ];
    const unavailable = [{ server: 'db', reason: 'PendingApproval', message: 'm', action: 'a' }];
    const names = (q?: string) =>
      (
        findTools(tools, unavailable, q).structuredContent as { tools: { name: string }[] }
      ).tools.map((t) => t.name);
    assert.deepEqual(names(), ['fs__read_file', 'gh__search']);
    assert.deepEqual(names('FILE read'), ['fs__read_file']);
    assert.deepEqual(names('github issues'), ['gh__search']);
    assert.deepEqual(names('nothing'), []);
    const all = findTools(tools, unavailable, undefined);
    assert.deepEqual(JSON.parse((all.content[0] as { text: string }).text), all.structuredContent);
    assert.deepEqual((all.structuredContent as { unavailable: unknown }).unavailable, unavailable);
  });
});
