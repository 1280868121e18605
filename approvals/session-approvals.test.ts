import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approvalHashOf, type McpServerConfig } from '../api/index.js';
import { SessionApprovals } from './session-approvals.js';

const FS: McpServerConfig = { command: 'node', args: ['fs.js'] };

describe('SessionApprovals', { timeout: 10_000 }, () => {
  it('approves a name for its exact config only', () => {
    const session = new SessionApprovals();
    assert.equal(session.isApproved('fs', FS), false);
    session.approve('fs', approvalHashOf(FS));
    assert.equal(session.isApproved('fs', FS), true);
    assert.equal(session.isApproved('fs', { ...FS, args: ['other.js'] }), false);
    assert.equal(session.isApproved('web', FS), false);
    // Fields outside the approval hash do not matter.
    assert.equal(session.isApproved('fs', { ...FS, description: 'x' }), true);
  });

  it('keeps each session apart', () => {
    const one = new SessionApprovals();
    const two = new SessionApprovals();
    one.approve('fs', approvalHashOf(FS));
    assert.equal(two.isApproved('fs', FS), false);
  });

  it('revokes and clears', () => {
    const session = new SessionApprovals();
    session.approve('fs', approvalHashOf(FS));
    session.approve('fs', approvalHashOf({ ...FS, args: ['v2.js'] }));
    session.approve('web', approvalHashOf(FS));
    assert.deepEqual(session.names(), ['fs', 'web']);
    assert.equal(session.revoke('fs'), true);
    assert.equal(session.revoke('fs'), false);
    assert.equal(session.isApproved('fs', FS), false);
    assert.equal(session.isApproved('fs', { ...FS, args: ['v2.js'] }), false);
    assert.equal(session.isApproved('web', FS), true);
    session.clear();
    assert.deepEqual(session.names(), []);
  });

  it('treats "__proto__" as an ordinary name', () => {
    const session = new SessionApprovals();
    session.approve('__proto__', approvalHashOf(FS));
    assert.equal(session.isApproved('__proto__', FS), true);
    assert.equal(session.isApproved('constructor', FS), false);
  });
});
