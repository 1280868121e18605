/**
 * e2e: `mcpctl logs NAME [-f] [--tail N]` against the built CLI, a real daemon and real server
 * processes (the stdio fixture, the fake language server): what is kept, `--tail`, both kinds,
 * a server that never ran, a hostile server's control characters and secrets, `-f` across a
 * restart, and a server flooding its stderr while other clients go on.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { CLI, TestEnv, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };
const FAKE_LSP = fileURLToPath(new URL('../lsp/testing/fake-server.js', import.meta.url));

/** Runs the CLI under a pseudo-terminal (util-linux `script`); what the terminal received. */
function onTerminal(env: TestEnv, args: readonly string[]): Promise<string> {
  const command = [process.execPath, CLI, ...args]
    .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: env.workspace,
      env: env.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    env.trackPid(child.pid);
    let screen = '';
    child.stdout.on('data', (c: Buffer) => (screen += c.toString()));
    child.on('error', reject);
    child.on('close', () => resolve(screen));
  });
}

/** The daemon's resident memory in KiB (Linux /proc). */
function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

describe('mcpctl logs (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('prints the kept stderr, the last N with --tail, by name or server/NAME', T, async () => {
    env.write(env.userSettingsPath, {
      mcpServers: { chatty: env.fixture('chatty', ['--stderr-lines=5']) },
    });
    await env.startDaemon();
    await env.untilServers((s) => isReady(s.get('chatty')), 'chatty Ready');
    const all = await env.cli(['logs', 'chatty']);
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(
      all.stdout.trim().split('\n'),
      [1, 2, 3, 4, 5].map((n) => `stderr line ${n}`),
    );
    const last = await env.cli(['logs', 'server/chatty', '--tail', '2']);
    assert.equal(last.code, 0, last.stderr);
    assert.equal(last.stdout, 'stderr line 4\nstderr line 5\n');
    const none = await env.cli(['logs', 'chatty', '--tail', '0']);
    assert.equal(none.stdout, '');
    const more = await env.cli(['logs', 'chatty', '--tail', '50']);
    assert.equal(more.stdout.trim().split('\n').length, 5);
    const bad = await env.cli(['logs', 'chatty', '--tail', '-3']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--tail "-3" is not a number of lines/);
    const unknown = await env.cli(['logs', 'chaty']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /chatty/, 'the closest name is named');
  });

  it(
    'a hostile server: no control sequence, bidi override or secret reaches stdout',
    T,
    async () => {
      const secret = 'sk-live-0123456789abcdef';
      const hostile = [
        'clear \u001b[2J\u001b[H screen',
        'clip \u001b]52;c;ZWNobyBoaQ==\u0007 board',
        'own colour \u001b[31m red \u001b[0m',
        'bidi \u202egpj.exe',
        'c1 \u009b31m',
        `the token is ${secret}`,
      ].join('|');
      env.write(env.userSettingsPath, {
        mcpServers: {
          hostile: {
            ...env.fixture('hostile'),
            env: { FIXTURE_STDERR: hostile, API_TOKEN: secret },
          },
        },
      });
      await env.startDaemon();
      await env.untilServers((s) => isReady(s.get('hostile')), 'hostile Ready');
      const r = await env.cli(['logs', 'hostile']);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(
        r.stdout,
        /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u,
      );
      assert.ok(r.stdout.includes('clear \\x1b[2J\\x1b[H screen'), r.stdout);
      assert.ok(r.stdout.includes('bidi \\u202egpj.exe'), r.stdout);
      assert.ok(!r.stdout.includes(secret), 'the env value is scrubbed');
      assert.match(r.stdout, /the token is <redacted>/);
      // On a terminal our own colours may pass the guard; a server's copy of them must not.
      const screen = await onTerminal(env, ['logs', 'hostile']);
      assert.ok(screen.includes('own colour \\x1b[31m red'), screen);
      assert.ok(!screen.includes('\u001b[31m'), 'no raw colour code of the server');
      assert.ok(!screen.includes('\u001b]52'), 'no raw OSC 52');
    },
  );

  it(
    'a server that never ran says so (exit 1); a crashed one shows its last lines',
    T,
    async () => {
      // Gated and not approved: nothing of it runs.
      env.write(env.mcpJsonPath, { mcpServers: { gated: env.fixture('gated') } });
      env.write(env.userSettingsPath, {
        mcpServers: {
          dies: env.fixture('dies', ['--exit-at-start', '--stderr=fatal: no config file|bye']),
        },
      });
      await env.startDaemon();
      await env.untilServers(
        (s) =>
          s
            .get('dies')
            ?.status.conditions.some(
              (c) => c.type === 'Ready' && c.status === 'False' && c.reason !== 'Connecting',
            ) === true,
        'dies failed',
      );
      const gated = await env.cli(['logs', 'gated']);
      assert.equal(gated.code, 1);
      assert.match(gated.stderr, /server\/gated has not run in this session \(PendingApproval/);
      assert.match(gated.stderr, /mcpctl why gated/);
      const dies = await env.cli(['logs', 'dies']);
      assert.equal(dies.code, 0, dies.stderr);
      assert.match(dies.stdout, /fatal: no config file\nbye\n/);
    },
  );

  it('a language server: languageserver/NAME shows the stderr of a failed start', T, async () => {
    const lspFile = path.join(env.root, 'lsp.json');
    env.write(lspFile, {
      broken: {
        command: process.execPath,
        args: [FAKE_LSP, 'crash', `--mcpctl-test=${env.root}`],
        extensionToLanguage: { '.txt': 'plaintext' },
      },
    });
    await env.startDaemon(['--lsp-config', lspFile]);
    await until(
      'the language server to fail',
      async () => {
        const r = await env.cli(['logs', 'languageserver/broken']);
        return r.code === 0 && r.stdout.includes('fake-server: missing config file fake.toml');
      },
      { timeoutMs: 20_000 },
    );
    const bare = await env.cli(['logs', 'broken']);
    assert.equal(bare.code, 0, bare.stderr);
    assert.match(bare.stdout, /missing config file/);
  });

  it('-f prints each new line once, across a restart, and ends when interrupted', T, async () => {
    env.write(env.userSettingsPath, {
      mcpServers: {
        ticker: env.fixture('ticker', [
          '--stderr-lines=2',
          '--stderr-every=50',
          '--exit-after=1500',
        ]),
      },
    });
    await env.startDaemon();
    await env.untilServers((s) => isReady(s.get('ticker')), 'ticker Ready');
    const follow = env.spawnCli(['logs', '-f', 'ticker']);
    let out = '';
    follow.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    try {
      // The first process exits after 1.5 s; the restart (backoff 1 s) writes its lines again.
      await until(
        'a second process',
        () => /stderr line 1[\s\S]*exiting after[\s\S]*stderr line 1[\s\S]*tick 3\n/.test(out),
        {
          timeoutMs: 30_000,
        },
      );
      assert.match(follow.output(), /ticker: new process, pid \d+/);
      const [first, second] = out.split(/exiting after 1500 ms as asked\n/);
      for (const part of [first ?? '', second ?? '']) {
        const ticks = [...part.matchAll(/^tick (\d+)$/gm)].map((m) => Number(m[1]));
        // Each line once, in order, none missing.
        assert.deepEqual(
          ticks,
          ticks.map((_, i) => i + 1),
          `ticks of one process: ${ticks.join(',')}`,
        );
      }
    } finally {
      follow.kill('SIGINT');
    }
    const code = await new Promise<number | null>((resolve) => {
      if (follow.exitCode !== null) resolve(follow.exitCode);
      else follow.once('exit', (c) => resolve(c));
    });
    assert.equal(code, 0);
  });

  it('a server flooding its stderr: the daemon stays bounded, other clients go on', T, async () => {
    env.write(env.userSettingsPath, {
      mcpServers: { flood: env.fixture('flood', ['--flood-stderr']), quiet: env.fixture('quiet') },
    });
    const daemon = await env.startDaemon();
    await env.untilServers((s) => isReady(s.get('flood')) && isReady(s.get('quiet')), 'both Ready');
    const follow = env.spawnCli(['logs', '-f', 'flood']);
    // Read nothing from the second follower: it must not grow the daemon either.
    const stalled = env.spawnCli(['logs', '-f', 'flood']);
    stalled.stdout?.pause();
    let bytes = 0;
    follow.stdout?.on('data', (c: Buffer) => (bytes += c.length));
    try {
      await until('1 MB of flood through -f', () => bytes > 1_000_000, { timeoutMs: 30_000 });
      const before = rssKiB(daemon.pid);
      await until('another 4 MB through -f', () => bytes > 5_000_000, { timeoutMs: 60_000 });
      // Other clients are answered meanwhile.
      const started = Date.now();
      const r = await env.cli(['get', 'servers', 'quiet', '-o', 'name']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(Date.now() - started < 10_000, 'get servers answered in time');
      const last = await env.cli(['logs', 'flood', '--tail', '3']);
      assert.equal(last.stdout.trim().split('\n').length, 3);
      assert.match(last.stdout, /^flood \d+ x{1000}$/m);
      const grown = rssKiB(daemon.pid) - before;
      assert.ok(grown < 100 * 1024, `the daemon grew ${grown} KiB while 4 MB went through`);
      assert.match(follow.output(), /lines of server\/flood were dropped/);
    } finally {
      follow.kill('SIGINT');
      stalled.kill('SIGKILL');
    }
  });
});
