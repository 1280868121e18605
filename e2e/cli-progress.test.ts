/**
 * e2e: `wait` (and `reload`) say on a terminal what they wait for and for how long, and write
 * no control sequence when stderr is piped. The terminal is a real pseudo-terminal made by
 * util-linux `script -qec`; a machine without `script` fails this test, as it should: the
 * property is only checked through a real terminal here (the renderer's own unit test,
 * cli/progress.test.ts, covers the rest).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { CLI, TestEnv } from './harness.js';

const T = { timeout: 60_000 };

/** Runs the CLI under a pseudo-terminal; resolves with everything the terminal received. */
function onTerminal(
  env: TestEnv,
  args: readonly string[],
): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, CLI, ...args]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: env.workspace,
      env: { ...env.env(), COLUMNS: '200', TERM: 'xterm' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    env.trackPid(child.pid);
    let screen = '';
    child.stdout.on('data', (c: Buffer) => (screen += c.toString()));
    child.stderr.on('data', (c: Buffer) => (screen += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, screen }));
  });
}

describe('progress lines (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('wait: a line that updates on a terminal; none when piped', T, async () => {
    env.write(env.userSettingsPath, {
      mcpServers: { stuck: env.fixture('stuck', ['--hang-before-initialize']) },
    });
    await env.startDaemon();
    const args = ['wait', 'server/stuck', '--for=condition=Ready', '--timeout=3s'];
    const tty = await onTerminal(env, args);
    assert.equal(tty.code, 1, tty.screen);
    assert.match(tty.screen, /\r\u001b\[2Kwaiting for server\/stuck Ready=True[^\r]*… 1s/);
    assert.match(tty.screen, /\r\u001b\[2Kwaiting for server\/stuck Ready=True[^\r]*… 2s/);
    assert.match(
      tty.screen,
      /timed out after 3s waiting for condition Ready=True on server\/stuck/,
    );
    const piped = await env.cli(args);
    assert.equal(piped.code, 1);
    assert.match(piped.stderr, /timed out after 3s/);
    assert.doesNotMatch(piped.stderr + piped.stdout, /[\r\u001b]|waiting for server/);
  });

  it('reload: piped output holds no control sequence', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { quiet: env.fixture('quiet') } });
    await env.startDaemon();
    const piped = await env.cli(['reload']);
    assert.equal(piped.code, 0, piped.stderr);
    assert.doesNotMatch(piped.stderr + piped.stdout, /[\r\u001b]/);
    const tty = await onTerminal(env, ['reload']);
    assert.equal(tty.code, 0, tty.screen);
    assert.match(tty.screen, /no changes/);
  });
});
