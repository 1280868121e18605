import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  approvalHashOf,
  computeGating,
  promptableServers,
  type ApprovalState,
  type DesiredServer,
  type McpServerConfig,
  type Scope,
} from '../api/index.js';
import { approvalLookup, approvalVerdictOf, type ApprovalReader } from './lookup.js';
import { SessionApprovals } from './session-approvals.js';
import { ApprovalStore } from './store.js';
import { tempDir } from '../testing/temp-dir.js';

const CONFIG: McpServerConfig = { command: 'node', args: ['s.js'] };

function server(name: string, scope: Scope, config: McpServerConfig = CONFIG): DesiredServer {
  return { name, scope, config, source: `/ws/${scope}` };
}

/** A store that answers from a table and counts what it was asked. */
function fakeStore(states: Record<string, ApprovalState>): ApprovalReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    getState(root, name) {
      asked.push(`${root}:${name}`);
      return states[name] ?? 'pending';
    },
  };
}

describe('approvalVerdictOf / approvalLookup', { timeout: 20_000 }, () => {
  it('never consults the store for non-gated scopes', () => {
    const store = fakeStore({ u: 'rejected', s: 'rejected', c: 'rejected', x: 'rejected' });
    const lookup = approvalLookup(store, '/ws');
    for (const [name, scope] of [
      ['u', 'user'],
      ['s', 'system'],
      ['c', 'cli'],
      ['x', 'session'],
    ] as const) {
      assert.equal(lookup(server(name, scope)), 'approved', scope);
      assert.deepEqual(approvalVerdictOf(store, '/ws', undefined, server(name, scope)), {
        state: 'approved',
        reason: 'NotGated',
      });
    }
    assert.deepEqual(store.asked, []);
  });

  it('passes project and workspace servers through the store, with the session root', () => {
    const store = fakeStore({ a: 'approved', r: 'rejected' });
    const lookup = approvalLookup(store, '/ws');
    assert.equal(lookup(server('a', 'project')), 'approved');
    assert.equal(lookup(server('r', 'workspace')), 'rejected');
    assert.equal(lookup(server('p', 'project')), 'pending');
    assert.deepEqual(store.asked, ['/ws:a', '/ws:r', '/ws:p']);
    assert.equal(
      approvalVerdictOf(store, '/ws', undefined, server('a', 'project')).reason,
      'Approved',
    );
    assert.equal(
      approvalVerdictOf(store, '/ws', undefined, server('r', 'project')).reason,
      'Rejected',
    );
    assert.equal(
      approvalVerdictOf(store, '/ws', undefined, server('p', 'project')).reason,
      'PendingApproval',
    );
  });

  it('counts a session approval of the current config as approved', () => {
    const store = fakeStore({ r: 'rejected' });
    const session = new SessionApprovals();
    session.approve('p', approvalHashOf(CONFIG));
    session.approve('r', approvalHashOf(CONFIG));
    const lookup = approvalLookup(store, '/ws', session);
    assert.equal(lookup(server('p', 'project')), 'approved');
    assert.equal(lookup(server('r', 'workspace')), 'approved');
    assert.deepEqual(approvalVerdictOf(store, '/ws', session, server('p', 'project')), {
      state: 'approved',
      reason: 'ApprovedForSession',
    });
    // The session approval is hash-bound like a stored one.
    assert.equal(lookup(server('p', 'project', { ...CONFIG, args: ['v2.js'] })), 'pending');
    session.revoke('r');
    assert.equal(lookup(server('r', 'workspace')), 'rejected');
  });

  it('drives computeGating and promptableServers with a real store, persisting nothing for a session approval', async () => {
    const temp = tempDir('mcpctl-lookup-');
    const tmp = temp.path;
    try {
      const file = path.join(tmp, 'approvals.json');
      const store = await ApprovalStore.open({ path: file });
      const session = new SessionApprovals();
      const servers = {
        user: server('user', 'user'),
        ok: server('ok', 'project'),
        no: server('no', 'project'),
        ask: server('ask', 'workspace'),
        mine: server('mine', 'project'),
      };
      await store.approve(tmp, 'ok', approvalHashOf(CONFIG));
      await store.reject(tmp, 'no', approvalHashOf(CONFIG));
      const before = fs.readFileSync(file, 'utf8');
      session.approve('mine', approvalHashOf(CONFIG));
      const lookup = approvalLookup(store, tmp, session);

      const gating = computeGating({ settings: undefined, servers, approvals: lookup });
      assert.deepEqual(gating.pending, ['ask', 'no']);
      assert.deepEqual(promptableServers(servers, lookup), ['ask']);
      assert.equal(fs.readFileSync(file, 'utf8'), before);
      assert.equal(store.getState(tmp, 'mine', CONFIG), 'pending');
    } finally {
      temp.remove();
    }
  });
});
