import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import {
  STARTER_ENV_MAX_BYTES,
  StarterEnvError,
  daemonProcessEnv,
  readStarterEnv,
  starterEnvDocument,
} from './daemon-env.js';

describe("a serve-started daemon's environment", { timeout: 10_000 }, () => {
  it('keeps what the daemon needs, nothing of the agent', () => {
    const kept = daemonProcessEnv({
      PATH: '/bin',
      HOME: '/home/me',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      TMPDIR: '/tmp',
      XDG_RUNTIME_DIR: '/run/user/1',
      MCPCTL_SOCKET: '/s',
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      HTTPS_PROXY: 'http://proxy:3128',
      GITHUB_TOKEN: 'ghp_secret',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      NODE_OPTIONS: '--require /agent/hook.js',
      SECRETX: 'x',
      UNSET: undefined,
    });
    assert.deepEqual(Object.keys(kept).sort(), [
      'HOME',
      'HTTPS_PROXY',
      'LANG',
      'LC_ALL',
      'MCPCTL_SOCKET',
      'NODE_EXTRA_CA_CERTS',
      'PATH',
      'TMPDIR',
      'XDG_RUNTIME_DIR',
    ]);
  });

  it("reads the starter's environment from stdin to its end", async () => {
    const input = new PassThrough();
    const read = readStarterEnv(input);
    const doc = starterEnvDocument({ label: 'serve pid 7', vars: { A: '1', T: 'sekrit' } });
    input.write(doc.slice(0, 10));
    input.end(doc.slice(10));
    assert.deepEqual(await read, { label: 'serve pid 7', vars: { A: '1', T: 'sekrit' } });
  });

  for (const [what, text] of [
    ['not JSON', '{"label":'],
    ['a value that is not text', '{"label":"x","vars":{"A":1}}'],
    ['no label', '{"vars":{}}'],
    ['vars that are a list', '{"label":"x","vars":["A=1"]}'],
  ]) {
    it(`refuses ${what}, without echoing it`, async () => {
      const input = new PassThrough();
      const read = readStarterEnv(input);
      input.end(text);
      await assert.rejects(read, (err: Error) => {
        assert.ok(err instanceof StarterEnvError);
        assert.match(err.message, /^--env-from-stdin: /);
        assert.ok(!err.message.includes(text), err.message);
        return true;
      });
    });
  }

  it('stops reading past its size limit, and when stdin does not end in time', async () => {
    const big = new PassThrough();
    const tooBig = readStarterEnv(big);
    big.write(Buffer.alloc(STARTER_ENV_MAX_BYTES + 1, 0x20));
    await assert.rejects(tooBig, /larger than/);
    assert.ok(big.destroyed, 'stdin is let go');

    const silent = new PassThrough();
    await assert.rejects(readStarterEnv(silent, 50), /did not end within/);
    assert.ok(silent.destroyed);
  });
});
