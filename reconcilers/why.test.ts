import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { daemonEnvironment, type DesiredServer, type Gating } from '../api/index.js';
import { why, type WhyContext } from './why.js';

const github: DesiredServer = {
  name: 'github',
  scope: 'user',
  source: '/home/u/.qwen/settings.json',
  config: { command: 'node', args: ['gh.js'] },
};

function ctx(over: {
  gating: Gating;
  ceiling?: string[];
  settingsAllowed?: string[];
  settingsExcluded?: string[];
}): WhyContext {
  return {
    trusted: true,
    gating: over.gating,
    approvals: { state: () => 'pending', approvedForSession: () => false },
    sessionId: 's1',
    workspace: '/ws',
    env: daemonEnvironment({ PATH: process.env.PATH }),
    server: github,
    record: undefined,
    removed: false,
    ceiling: over.ceiling,
    settingsAllowed: over.settingsAllowed,
    settingsExcluded: over.settingsExcluded,
  };
}

describe('why: the fix for a server a gating list keeps out', { timeout: 10_000 }, () => {
  it('excluded by its name: remove the name; by a glob: that glob is what to change', () => {
    const byName = why(
      'github',
      ctx({ gating: { excluded: ['github'] }, settingsExcluded: ['github'] }),
    );
    assert.equal(byName.reason, 'Excluded');
    assert.equal(byName.action, 'remove "github" from mcp.excluded in your settings');
    const byGlob = why(
      'github',
      ctx({ gating: { excluded: ['github'] }, settingsExcluded: ['git*', 'other', '*hub'] }),
    );
    assert.equal(
      byGlob.action,
      'mcp.excluded in your settings matches "github" by "git*", "*hub": narrow or remove those entries',
    );
  });

  it('a glob in the ceiling that matches counts as in the ceiling: the settings are to change', () => {
    const answer = why(
      'github',
      ctx({ gating: { allowed: [] }, ceiling: ['git*'], settingsAllowed: ['fs'] }),
    );
    assert.equal(answer.reason, 'NotAllowed');
    assert.match(answer.action, /^add "github" to mcp\.allowed in your settings/);
    const outside = why('github', ctx({ gating: { allowed: [] }, ceiling: ['fs*'] }));
    assert.match(outside.action, /^the daemon was started with --allowed-mcp-server-names=fs\*/);
  });
});
