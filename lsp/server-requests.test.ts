import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APPLY_EDIT_REFUSED, ServerRequests, settingAt } from './server-requests.js';

test('settingAt: nested sections, flat dotted keys, gathered keys, all, or null', () => {
  const settings = {
    python: { analysis: { strict: true } },
    'rust-analyzer.cargo': { features: ['x'] },
    'go.lint.onSave': 'file',
    'go.lint.tool': 'vet',
  };
  assert.deepEqual(settingAt(settings, 'python'), { analysis: { strict: true } });
  assert.equal(settingAt(settings, 'python.analysis.strict'), true);
  assert.deepEqual(settingAt(settings, 'rust-analyzer.cargo'), { features: ['x'] });
  assert.deepEqual(settingAt(settings, 'go'), { lint: { onSave: 'file', tool: 'vet' } });
  assert.deepEqual(settingAt(settings, 'go.lint'), { onSave: 'file', tool: 'vet' });
  assert.equal(settingAt(settings, 'absent'), null);
  assert.equal(settingAt(settings, 'python.absent'), null);
  assert.deepEqual(settingAt(settings, undefined), settings);
  assert.deepEqual(settingAt(settings, ''), settings);
  assert.equal(settingAt(undefined, 'x'), null);
  assert.equal(settingAt(undefined, undefined), null);
  // A falsy value is a value, not a missing one.
  assert.equal(settingAt({ a: { b: false } }, 'a.b'), false);
  assert.equal(settingAt({ a: { b: 0 } }, 'a.b'), 0);
});

test('registrations are remembered until unregistered', () => {
  const notes: string[] = [];
  const r = new ServerRequests({
    workspaceFolder: '/ws',
    settings: () => ({}),
    onNote: (n) => notes.push(n),
  });
  assert.equal(r.registered('textDocument/diagnostic'), false);
  r.register([{ id: 'a', method: 'textDocument/diagnostic' }]);
  assert.equal(r.registered('textDocument/diagnostic'), true);
  r.unregister(['a']);
  assert.equal(r.registered('textDocument/diagnostic'), false);
  assert.deepEqual(r.applyEdit('fix'), { applied: false, failureReason: APPLY_EDIT_REFUSED });
  assert.equal(r.showMessageRequest('Restart?'), null);
  assert.equal(notes.length, 2);
  assert.deepEqual(r.workspaceFolders(), [{ uri: 'file:///ws', name: 'ws' }]);
  // The settings are read at each request: an edit reaches the next one.
  let settings: unknown = { s: 1 };
  const live = new ServerRequests({
    workspaceFolder: '/ws',
    settings: () => settings,
    onNote: () => undefined,
  });
  assert.deepEqual(live.configuration([{ section: 's' }]), [1]);
  settings = { s: 2 };
  assert.deepEqual(live.configuration([{ section: 's' }, {}]), [2, { s: 2 }]);
});
