import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pickSession, severalSessionsLine } from './session-names.js';

const ids = ['default', 'workspace-1a2b3c', 'workspace-1a9f00', 'other-77aa00'];

describe('pickSession (--session NAME)', () => {
  it('picks an exact id, even one that begins another', () => {
    assert.deepEqual(pickSession('default', [...ids, 'default-123456']), { id: 'default' });
    assert.deepEqual(pickSession('other-77aa00', ids), { id: 'other-77aa00' });
  });

  it('picks the one session a prefix begins', () => {
    assert.deepEqual(pickSession('workspace-1a2', ids), { id: 'workspace-1a2b3c' });
    assert.deepEqual(pickSession('o', ids), { id: 'other-77aa00' });
  });

  it('refuses a prefix of several, naming them', () => {
    const got = pickSession('workspace-1a', ids);
    assert.ok('error' in got);
    assert.match(got.error, /names 2 sessions \(workspace-1a2b3c, workspace-1a9f00\)/);
  });

  it('refuses an unknown name, naming every session there is', () => {
    const got = pickSession('nope', ids);
    assert.ok('error' in got);
    assert.match(
      got.error,
      /no session named nope; the sessions there are: default, workspace-1a2b3c/,
    );
    const none = pickSession('x', []);
    assert.ok('error' in none);
    assert.match(none.error, /\(none\)/);
  });
});

describe('severalSessionsLine', () => {
  it('says nothing for one session, one line naming count, shown one and the flags for more', () => {
    assert.equal(severalSessionsLine('default', ['default']), '');
    assert.equal(severalSessionsLine('default', []), '');
    const line = severalSessionsLine('default', ['default', 'workspace-1a2b3c']);
    assert.equal(line.split('\n').length, 2, 'one line');
    assert.match(line, /2 sessions \(default, workspace-1a2b3c\); showing default/);
    assert.match(line, /--session NAME/);
    assert.match(line, /-A/);
  });
});
