import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  agentEnvironment,
  daemonEnvironment,
  environmentDigest,
  isPerProcessVariable,
} from './session-env.js';

describe('session environments', { timeout: 10_000 }, () => {
  it('digests the set variables, whatever their order', () => {
    assert.match(environmentDigest({ A: '1' }), /^[0-9a-f]{64}$/);
    assert.equal(environmentDigest({ A: '1', B: '2' }), environmentDigest({ B: '2', A: '1' }));
    assert.equal(environmentDigest({ A: '1', U: undefined }), environmentDigest({ A: '1' }));
    assert.notEqual(environmentDigest({ A: '1' }), environmentDigest({ A: '2' }));
    assert.notEqual(environmentDigest({ A: '1' }), environmentDigest({ A: '1', B: '' }));
    // Name and value are delimited: moving text from one to the other is another environment.
    assert.notEqual(environmentDigest({ AB: 'c' }), environmentDigest({ A: 'Bc' }));
  });

  it("an agent's environment is a frozen copy that inherits nothing", () => {
    const sent: Record<string, string | undefined> = { PATH: '/bin', T: 'x', GONE: undefined };
    const env = agentEnvironment(sent);
    assert.equal(env.kind, 'agent');
    sent.T = 'changed';
    assert.deepEqual({ ...env.vars }, { PATH: '/bin', T: 'x' });
    assert.ok(Object.isFrozen(env.vars));
    assert.equal(Object.getPrototypeOf(env.vars), null);
    assert.equal((env.vars as Record<string, unknown>).constructor, undefined);
    assert.equal(env.kind === 'agent' && env.digest, environmentDigest({ PATH: '/bin', T: 'x' }));
  });

  it("leaves out one process's and one terminal's variables: two agents of one user agree", () => {
    const shared = { PATH: '/bin', HOME: '/home/u', GITHUB_TOKEN: 't', MCPCTL_X: '1' };
    const claude = agentEnvironment({
      ...shared,
      PWD: '/ws',
      OLDPWD: '/a',
      SHLVL: '3',
      _: '/usr/bin/claude',
      TERM_SESSION_ID: 'w1t1',
      CLAUDECODE: '1',
      CLAUDE_CODE_ENTRYPOINT: 'cli',
      VSCODE_GIT_IPC_HANDLE: '/run/user/1/vscode-git-1.sock',
      npm_lifecycle_event: 'start',
    });
    const gemini = agentEnvironment({
      ...shared,
      PWD: '/ws/sub',
      SHLVL: '1',
      WINDOWID: '123',
      GEMINI_CLI: '1',
      TERM_PROGRAM: 'vscode',
    });
    assert.deepEqual({ ...claude.vars }, shared);
    assert.equal(
      claude.kind === 'agent' && claude.digest,
      gemini.kind === 'agent' && gemini.digest,
    );
    // A variable of the user's setup still tells two environments apart.
    const other = agentEnvironment({ ...shared, GITHUB_TOKEN: 'u' });
    assert.notEqual(
      claude.kind === 'agent' && claude.digest,
      other.kind === 'agent' && other.digest,
    );
    for (const kept of ['PATH', 'SSH_AUTH_SOCK', 'npm_config_registry', 'TERM', 'DISPLAY'])
      assert.equal(isPerProcessVariable(kept), false, kept);
  });

  it("the daemon's own environment is taken as it is", () => {
    const env = daemonEnvironment(process.env);
    assert.equal(env.kind, 'daemon');
    assert.equal(env.vars, process.env);
  });
});
