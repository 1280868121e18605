import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  changedKeys,
  flattenSchema,
  isHotChange,
  isHotSubtree,
  isRestartRequiredKey,
  SETTINGS_SCHEMA,
} from './restart-gate.js';

test('the restart flags DESIGN §4 rule 15 depends on are pinned', { timeout: 5000 }, () => {
  const flat = flattenSchema(SETTINGS_SCHEMA);
  // Flipping any of these back silently kills hot reload (or restarts too eagerly).
  assert.equal(flat.get('mcpServers'), false);
  assert.equal(flat.get('mcp.allowed'), false);
  assert.equal(flat.get('mcp.excluded'), false);
  assert.equal(flat.get('mcp'), true);
  assert.equal(flat.get('mcp.serverCommand'), true);
  assert.equal(flat.get('security.folderTrust.enabled'), false);
});

test('longest prefix wins, leaf over parent, unknown keys hot', { timeout: 5000 }, () => {
  assert.equal(isRestartRequiredKey('mcpServers.fs.args'), false);
  assert.equal(isRestartRequiredKey('mcp.allowed'), false);
  assert.equal(isRestartRequiredKey('mcp.excluded'), false);
  assert.equal(isRestartRequiredKey('mcp.serverCommand'), true);
  assert.equal(isRestartRequiredKey('mcp'), true);
  assert.equal(isRestartRequiredKey('mcp.somethingNew'), true, 'inherits from mcp');
  assert.equal(isRestartRequiredKey('ui.theme'), false);
  assert.equal(isRestartRequiredKey('tools.sandbox'), true);
  assert.equal(isRestartRequiredKey('skills.enabled'), false, 'unknown → hot');
  assert.equal(isRestartRequiredKey('mcpServersX'), false, 'prefix by whole segments only');
});

test('flattenSchema lists parents and leaves with their own flags', { timeout: 5000 }, () => {
  const flat = flattenSchema({
    a: { requiresRestart: true, properties: { b: { requiresRestart: false } } },
  });
  assert.deepEqual(
    [...flat],
    [
      ['a', true],
      ['a.b', false],
    ],
  );
  assert.equal(isRestartRequiredKey('a.b.c', flat), false);
  assert.equal(isRestartRequiredKey('a.c', flat), true);
});

test('changedKeys compares parsed values: key order never counts', { timeout: 5000 }, () => {
  assert.deepEqual(changedKeys({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }), []);
  assert.deepEqual(changedKeys({ a: [1, 2] }, { a: [2, 1] }), ['a'], 'arrays compare in order');
  assert.deepEqual(changedKeys({ mcp: { allowed: ['a'] } }, undefined), ['mcp.allowed']);
  assert.deepEqual(changedKeys({}, { mcp: {} }), ['mcp']);
  assert.deepEqual(changedKeys({ ui: { theme: 'x' } }, { ui: { theme: 'y' } }), ['ui.theme']);
  // Names of Object.prototype members are ordinary keys, never inherited values.
  assert.deepEqual(changedKeys({ a: 1 }, { a: 1, constructor: 1 }), ['constructor']);
  assert.deepEqual(changedKeys({ toString: { x: 1 } }, 5), ['toString.x']);
  const shared = { big: { x: [1, 2] } };
  assert.deepEqual(changedKeys(shared, shared), [], 'the same document: nothing changed');
});

test('isHotChange: true only when some changed key is hot', { timeout: 5000 }, () => {
  const base = { ui: { theme: 'a' }, mcp: { serverCommand: 'x', excluded: [] }, mcpServers: {} };
  assert.equal(isHotChange(base, { ...base, mcp: { ...base.mcp, serverCommand: 'y' } }), false);
  assert.equal(isHotChange(base, { ...base, mcp: { ...base.mcp, excluded: ['fs'] } }), true);
  assert.equal(isHotChange(base, { ...base, mcpServers: { fs: { command: 'n' } } }), true);
  assert.equal(isHotChange(base, { ...base, tools: { sandbox: true } }), false);
  assert.equal(
    isHotChange(base, { ...base, tools: { sandbox: true }, mcp: { ...base.mcp, allowed: [] } }),
    true,
    'a restart-only key next to a hot one does not hide the hot one',
  );
  assert.equal(
    isHotChange(base, { ...base, ui: { theme: 'b' } }),
    true,
    'theme is hot (and harmless)',
  );
  assert.equal(isHotChange(base, structuredClone(base)), false, 'no change is not hot');
});

test('a subtree that is hot throughout is compared whole', { timeout: 5000 }, () => {
  assert.equal(isHotSubtree('mcpServers'), true);
  assert.equal(isHotSubtree('somethingUnknown'), true);
  assert.equal(isHotSubtree('mcp'), false, 'mcp itself needs a restart');
  assert.equal(isHotSubtree('security'), false);
  assert.equal(isHotSubtree('general'), false, 'general.checkpointing needs a restart');
  const servers = (args: string[]) => ({ mcpServers: { a: { command: 'x', args } } });
  assert.equal(isHotChange(servers(['1']), servers(['2'])), true);
  // Equal content in other objects (an editor rewrote the file) is no change at all.
  assert.equal(isHotChange(servers(['1']), servers(['1'])), false);
  assert.equal(
    isHotChange(
      { mcpServers: { a: { command: 'x' }, b: {} } },
      { mcpServers: { b: {}, a: { command: 'x' } } },
    ),
    false,
    'key order never counts',
  );
  assert.equal(
    isHotChange({ general: { checkpointing: 1 } }, { general: { checkpointing: 2 } }),
    false,
  );
});
