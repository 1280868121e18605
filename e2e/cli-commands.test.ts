/**
 * e2e: the read and control commands — diff (connects nothing), reload, wait, get --watch,
 * describe, and session selection by --workspace.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { SessionList } from '../cli/objects.js';
import { TestEnv, condition, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

describe('mcpctl commands (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'diff previews a reload and starts nothing; reload applies it and says what changed',
    T,
    async () => {
      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx'), gone: env.fixture('gone') },
      });
      env.write(env.mcpJsonPath, { mcpServers: { proj: env.fixture('proj') } });
      // A debounce longer than the test: edits wait for `reload`, so `diff` has something to show.
      await env.startDaemon(['--debounce-ms', '600000']);
      const before = await env.untilServers(
        (m) => isReady(m.get('fx')) && isReady(m.get('gone')),
        'fx, gone Ready',
      );

      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx', ['--tools=x']), added: env.fixture('added') },
      });
      const diff = await env.cli(['diff']);
      assert.equal(diff.code, 0, diff.stderr);
      assert.deepEqual(diff.stdout.trimEnd().split('\n'), [
        '+ add added',
        '~ restart fx (args)',
        '- remove gone',
        '! blocked proj (PendingApproval)',
      ]);
      assert.equal(existsSync(env.pidFile('added')), false, 'diff started nothing');
      const still = await env.servers();
      assert.equal(still.has('added'), false, 'diff committed nothing');
      assert.equal(still.get('fx')!.status.pid, before.get('fx')!.status.pid);

      const reload = await env.cli(['reload']);
      assert.equal(reload.code, 0, reload.stderr);
      assert.deepEqual(reload.stdout.trimEnd().split('\n'), [
        '+ add added',
        '~ restart fx (args)',
        '- remove gone',
        '! blocked proj (PendingApproval)',
      ]);
      const after = await env.servers();
      assert.ok(isReady(after.get('added')), 'reload answers when settled');
      assert.notEqual(after.get('fx')!.status.pid, before.get('fx')!.status.pid);
      assert.equal(after.has('gone'), false);
      const again = await env.cli(['reload']);
      assert.match(again.stdout, /^! blocked proj \(PendingApproval\)\n$/);
      const keep = await env.cli(['diff']);
      assert.match(keep.stdout, /^= keep added\n= keep fx\n! blocked proj/);
    },
  );

  it('wait: meets the condition, times out, honours Ready=false', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
    env.write(env.mcpJsonPath, { mcpServers: { proj: env.fixture('proj') } });
    await env.startDaemon();
    const met = await env.cli(['wait', 'server/fx', '--for=condition=Ready', '--timeout=20s']);
    assert.equal(met.code, 0, met.stderr);
    assert.equal(met.stdout, 'server/fx condition met\n');

    const started = Date.now();
    const timeout = await env.cli(['wait', 'server/proj', '--for=condition=Ready', '--timeout=1s']);
    assert.equal(timeout.code, 1);
    assert.match(
      timeout.stderr,
      /timed out after 1s waiting for condition Ready=True on server\/proj/,
    );
    assert.ok(Date.now() - started < 15_000);
    const notReady = await env.cli([
      'wait',
      'server/proj',
      '--for',
      'condition=Ready=false',
      '--timeout',
      '5s',
    ]);
    assert.equal(notReady.code, 0, notReady.stderr);
    const missing = await env.cli([
      'wait',
      'server/nope',
      '--for=condition=Ready',
      '--timeout=500ms',
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nope/);
    const once = await env.cli(['wait', 'server/fx', '--for=condition=Ready', '--timeout=0']);
    assert.equal(once.code, 0, once.stderr);

    // Waiting for a server that is about to be added.
    const waiter = env.spawnCli(['wait', 'server/late', '--for=condition=Ready', '--timeout=30s']);
    const done = new Promise<number | null>((resolve) =>
      waiter.on('exit', (code) => resolve(code)),
    );
    await until('daemon answering', async () => (await env.cli(['get', 'events'])).code === 0);
    env.write(env.userSettingsPath, {
      mcpServers: { fx: env.fixture('fx'), late: env.fixture('late') },
    });
    assert.equal(await done, 0, waiter.output());
    assert.match(waiter.output(), /server\/late condition met/);
  });

  it('get --watch streams changes until SIGINT', T, async () => {
    env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
    await env.startDaemon();
    await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
    const watch = env.spawnCli(['get', 'servers', '--watch']);
    const exited = new Promise<number | null>((resolve) =>
      watch.on('exit', (code) => resolve(code)),
    );
    const events = env.spawnCli(['get', 'events', '--watch', '-o', 'json']);
    const eventsExited = new Promise<number | null>((resolve) =>
      events.on('exit', (code) => resolve(code)),
    );
    await until(
      'the initial table',
      () => /^NAME\s+SCOPE/m.test(watch.output()) && /\nfx\s+user/.test(watch.output()),
    );
    await until('past events', () => events.output().includes('"reason": "Connected"'));
    env.write(env.userSettingsPath, {
      mcpServers: { fx: env.fixture('fx'), late: env.fixture('late') },
    });
    await until('the new server to stream in as Ready', () =>
      /\nlate\s+user\s+True\s+True\s+1\s+\S+\s+Connected/.test(watch.output()),
    );
    await until('the new server event to stream in', () =>
      events.output().includes('"involvedObject": "server/late"'),
    );
    assert.equal(watch.output().match(/^NAME/gm)?.length, 1, 'one header');
    watch.kill('SIGINT');
    events.kill('SIGINT');
    assert.equal(await exited, 0);
    assert.equal(await eventsExited, 0);
  });

  it(
    'describe: spec redacted unless --show-secrets, conditions, events, stderr when not Ready',
    T,
    async () => {
      env.write(env.userSettingsPath, {
        mcpServers: {
          fx: { ...env.fixture('fx'), env: { API_TOKEN: 'hunter2' } },
          broken: env.fixture('broken', [
            '--exit-at-start',
            '--stderr=cannot open the database|giving up',
          ]),
        },
      });
      await env.startDaemon();
      await env.untilServers(
        (m) => isReady(m.get('fx')) && condition(m.get('broken'), 'Ready')?.status === 'False',
        'fx Ready, broken failing',
      );
      const d = await env.cli(['describe', 'server', 'fx']);
      assert.equal(d.code, 0, d.stderr);
      assert.match(d.stdout, /^Name:\s+fx$/m);
      assert.match(d.stdout, /API_TOKEN: <redacted>/);
      assert.doesNotMatch(d.stdout, /hunter2/);
      assert.match(
        d.stdout,
        /^Conditions:\n\s+Type\s+Status\s+LastTransitionTime\s+Reason\s+Message$/m,
      );
      assert.match(d.stdout, /^\s+Ready\s+True\s+\S+\s+Connected/m);
      assert.match(d.stdout, /^Events:\n\s+Type\s+Reason\s+Age\s+Message\n[\s\S]*Connected/m);
      const secret = await env.cli(['describe', 'server', 'fx', '--show-secrets']);
      assert.match(secret.stdout, /API_TOKEN: hunter2/);
      const broken = await env.cli(['describe', 'server', 'broken']);
      assert.match(broken.stdout, /Recent stderr[^\n]*\n\s+cannot open the database\n\s+giving up/);
      const why = await env.cli(['why', 'broken', '-o', 'json']);
      assert.equal((JSON.parse(why.stdout) as { reason: string }).reason, 'ConnectFailed');
    },
  );

  it(
    '--workspace selects a session, opened for its opener and closed when it goes',
    T,
    async () => {
      // An absolute cwd: the server runs in one place for both workspaces, so it may be shared.
      env.write(env.userSettingsPath, {
        mcpServers: { shared: { ...env.fixture('shared'), cwd: env.root } },
      });
      const ws2 = path.join(env.root, 'ws2');
      mkdirSync(ws2);
      env.write(path.join(ws2, '.mcp.json'), { mcpServers: { only2: env.fixture('only2') } });
      await env.startDaemon();
      const main = await env.untilServers((m) => isReady(m.get('shared')), 'shared Ready');

      // A one-shot command opens ws2's session for its own connection only.
      const other = await env.servers({ args: ['--workspace', ws2] });
      assert.deepEqual([...other.keys()], ['only2', 'shared']);
      assert.equal(
        other.get('shared')!.status.pid,
        main.get('shared')!.status.pid,
        'one pooled process for both',
      );
      assert.equal(condition(other.get('only2'), 'Admitted')?.reason, 'PendingApproval');
      await until(
        'the one-shot session to close',
        async () =>
          (await env.json<SessionList>(['get', 'sessions', '-o', 'json'])).items.length === 1,
      );

      // A watch holds it open until the watcher goes.
      const watch = env.spawnCli(['get', 'servers', '--watch', '--workspace', ws2]);
      const sessions = await until('the ws2 session to be listed', async () => {
        const list = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
        return list.items.length === 2 ? list : undefined;
      });
      const second = sessions.items.find((s) => s.metadata.name !== 'default')!;
      assert.equal(second.spec.workspace, realpathSync(ws2));
      assert.deepEqual(second.status.servers, ['only2', 'shared']);
      // Run from inside ws2 without --workspace: the open ws2 session is chosen by the cwd.
      const byCwd = await env.servers({ cwd: ws2 });
      assert.ok(byCwd.has('only2'));
      const fromMain = await env.servers();
      assert.equal(fromMain.has('only2'), false, 'the default session is unaffected');
      watch.kill('SIGINT');
      await until(
        'the ws2 session to close with its watcher',
        async () =>
          (await env.json<SessionList>(['get', 'sessions', '-o', 'json'])).items.length === 1,
      );
    },
  );
});
