import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { APPROVALS_PATH_ENV, approvalsFilePath } from './location.js';

describe('approvalsFilePath', { timeout: 10_000 }, () => {
  it('defaults to <home>/.qwen/mcpApprovals.json', () => {
    assert.equal(
      approvalsFilePath({ env: {}, home: '/home/someone' }),
      '/home/someone/.qwen/mcpApprovals.json',
    );
  });

  it('lets MCPCTL_APPROVALS_PATH override the home default', () => {
    assert.equal(APPROVALS_PATH_ENV, 'MCPCTL_APPROVALS_PATH');
    assert.equal(
      approvalsFilePath({ env: { MCPCTL_APPROVALS_PATH: '/etc/a.json' }, home: '/home/x' }),
      '/etc/a.json',
    );
  });

  it('resolves a relative override against the working directory', () => {
    assert.equal(
      approvalsFilePath({ env: { MCPCTL_APPROVALS_PATH: 'rel/a.json' }, home: '/home/x' }),
      path.resolve('rel/a.json'),
    );
  });

  it('ignores an empty override', () => {
    assert.equal(
      approvalsFilePath({ env: { MCPCTL_APPROVALS_PATH: ' ' }, home: '/home/x' }),
      '/home/x/.qwen/mcpApprovals.json',
    );
  });
});
