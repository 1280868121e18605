/**
 * e2e: the habits of the field against the built CLI: `mcpctl version` with and without a
 * daemon, and completion of server names from the running daemon through the bash script
 * (`mcpctl completion bash` sourced in a real bash, `mcpctl` on PATH).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CLI, TestEnv, isReady } from './harness.js';
import type { VersionInfo } from '../cli/commands/version.js';

const T = { timeout: 60_000 };

describe('version and completion (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('version: the client always; the daemon when one runs, else says none does', T, async () => {
    const none = await env.cli(['version']);
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /^Client Version: \d+\.\d+\.\d+ \(node [\d.]+\)\n/);
    assert.match(none.stdout, /Daemon Version: none running \(at .*mcpctl\.sock\)/);
    const noneJson = JSON.parse((await env.cli(['version', '-o', 'json'])).stdout) as VersionInfo;
    assert.equal(noneJson.daemon, null);
    const daemon = await env.startDaemon();
    const text = await env.cli(['version']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(`Daemon Version: \\d+\\.\\d+\\.\\d+ \\(pid ${daemon.pid}, up `),
    );
    assert.equal(text.stderr, '', 'same version: no note');
    const info = JSON.parse((await env.cli(['version', '-o', 'json'])).stdout) as VersionInfo;
    assert.equal(info.daemon?.pid, daemon.pid);
    assert.equal(info.daemon?.version, info.client.version);
  });

  it(
    'completion: server names come from the daemon; none and no message without one',
    T,
    async () => {
      // `mcpctl` on PATH, as an installed one is.
      const bin = path.join(env.root, 'bin');
      mkdirSync(bin);
      const wrapper = path.join(bin, 'mcpctl');
      writeFileSync(
        wrapper,
        `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
      );
      chmodSync(wrapper, 0o755);
      const script = path.join(env.root, 'mcpctl.bash');
      writeFileSync(script, (await env.cli(['completion', 'bash'])).stdout);
      const complete = (line: string) => {
        const words = line.split(' ');
        const r = spawnSync(
          'bash',
          [
            '--norc',
            '-c',
            `source ${JSON.stringify(script)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _mcpctl; printf '%s\\n' "\${COMPREPLY[@]}"`,
          ],
          {
            cwd: env.workspace,
            env: { ...env.env(), PATH: `${bin}:${process.env.PATH ?? ''}` },
            encoding: 'utf8',
            timeout: 20_000,
          },
        );
        return { words: r.stdout.split('\n').filter((w) => w !== ''), stderr: r.stderr };
      };
      const started = Date.now();
      const without = complete('mcpctl logs a');
      assert.deepEqual(without, { words: [], stderr: '' });
      assert.ok(Date.now() - started < 10_000, 'no daemon: answered at once');
      const silent = await env.cli(['__complete', 'names']);
      assert.deepEqual([silent.code, silent.stdout, silent.stderr], [0, '', '']);

      env.write(env.userSettingsPath, {
        mcpServers: {
          alpha: env.fixture('alpha'),
          albert: env.fixture('albert'),
          beta: env.fixture('beta'),
        },
      });
      await env.startDaemon();
      await env.untilServers((s) => isReady(s.get('alpha')), 'alpha Ready');
      assert.deepEqual(complete('mcpctl logs al').words, ['albert', 'alpha']);
      assert.deepEqual(complete('mcpctl describe server b').words, ['beta']);
      assert.deepEqual(complete('mcpctl wait server/a').words, ['server/albert', 'server/alpha']);
      assert.deepEqual(complete('mcpctl get servers -o json be').words, ['beta']);
    },
  );
});
