/**
 * The original note's verification list (DESIGN §4) and our own rules (§5), against a real
 * session: real files, a real watcher, real stdio fixture processes, a spied pool.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { connectionIdOf } from '../api/index.js';
import { StaleDecisionError } from './errors.js';
import {
  condition,
  fixtureConfig,
  harness,
  readyPid,
  servers,
  sleep,
  type Harness,
} from './testing/harness.js';
import { until } from '../testing/until.js';
import { pidAlive } from '../proc/index.js';

const T = { timeout: 60_000 };

describe('session: hot reload with real processes', T, () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(async () => {
    await h.close();
  });

  it(
    'connects, then removal drops tools and prompts and leaves nothing behind (0 ↔ 1)',
    T,
    async () => {
      h.write(h.files.user, servers({ a: fixtureConfig(['--tools=t1,t2', '--prompt=p1']) }));
      const s = await h.session();
      const pid = await until('a ready', () => readyPid(s, 'a'));
      assert.deepEqual(s.kind('McpServer').get('a')?.status.tools, ['t1', 't2']);
      assert.deepEqual(s.kind('McpServer').get('a')?.status.prompts, ['p1']);
      assert.equal(s.registry.get('a')?.tools.length, 2);

      h.write(h.files.user, servers({}));
      await until(
        'a removed',
        () => s.kind('McpServer').get('a') === undefined && s.registry.get('a') === undefined,
      );
      await until('process gone', () => !pidAlive(pid));
      assert.equal(h.pool.stats().length, 0);
      assert.equal(s.kind('McpServer').why('a').reason, 'Removed');

      h.write(h.files.user, servers({ a: fixtureConfig(['--tools=t1']) }));
      const pid2 = await until('a back', () => readyPid(s, 'a'));
      assert.notEqual(pid2, pid);
      assert.equal(s.kind('McpServer').why('a').reason, 'Available');
    },
  );

  it(
    'same config: no churn over 3 reloads; changed args: exactly one disconnect and one connect',
    T,
    async () => {
      h.write(
        h.files.user,
        servers({ a: fixtureConfig(['--tools=x']), b: fixtureConfig(['--tools=y']) }),
      );
      const s = await h.session();
      const a1 = await until('a', () => readyPid(s, 'a'));
      const b1 = await until('b', () => readyPid(s, 'b'));
      for (let i = 0; i < 3; i++) await s.reload();
      assert.equal(readyPid(s, 'a'), a1);
      assert.equal(h.pool.count('a'), 1);
      assert.equal(h.pool.released.length, 0);

      h.write(
        h.files.user,
        servers({
          a: fixtureConfig(['--tools=x', '--prompt=new']),
          b: fixtureConfig(['--tools=y']),
        }),
      );
      const a2 = await until('a restarted', () => {
        const pid = readyPid(s, 'a');
        return pid !== a1 ? pid : undefined;
      });
      await s.settled();
      assert.equal(h.pool.count('a'), 2, 'one more connect');
      assert.equal(h.pool.released.filter((k) => k.startsWith('a::')).length, 1, 'one disconnect');
      assert.equal(readyPid(s, 'b'), b1, 'the other server kept its process');
      assert.equal(h.pool.count('b'), 1);
      await until('old a gone', () => !pidAlive(a1));
      assert.ok(pidAlive(a2));
      assert.equal(s.kind('McpServer').get('a')?.status.restarts, 1);
      assert.equal(s.kind('McpServer').get('a')?.metadata.generation, 2);
    },
  );

  it('replace, not merge: a higher scope replaces the whole entry', T, async () => {
    h.write(
      h.files.user,
      servers({ a: fixtureConfig(['--tools=user'], { env: { ONLY_USER: '1' } }) }),
    );
    h.write(h.files.system, servers({ a: fixtureConfig(['--tools=system']) }));
    const s = await h.session();
    await until('a', () => readyPid(s, 'a'));
    assert.deepEqual(s.kind('McpServer').get('a')?.status.tools, ['system']);
    assert.equal(
      s.kind('McpServer').get('a')?.spec.env,
      undefined,
      'no env merged in from the user layer',
    );
    assert.equal(
      s.kind('McpServer').get('a')?.metadata.annotations?.['mcpctl.dev/scope'],
      'system',
    );
    assert.equal(
      s.kind('McpServer').get('a')?.status.connectionId,
      connectionIdOf('a', fixtureConfig(['--tools=system']), s.workspace),
    );
  });

  it('one server’s env change restarts only that one', T, async () => {
    const names = ['a', 'b', 'c', 'd'];
    const cfg = (env: string) =>
      servers(
        Object.fromEntries(
          names.map((n) => [
            n,
            fixtureConfig([`--tools=${n}`], { env: { V: n === 'c' ? env : 'x' } }),
          ]),
        ),
      );
    h.write(h.files.user, cfg('1'));
    const s = await h.session();
    const before = await until('all ready', () => {
      const pids = names.map((n) => readyPid(s, n));
      return pids.every((p) => p !== undefined) ? pids : undefined;
    });
    h.write(h.files.user, cfg('2'));
    await until('c restarted', () => {
      const p = readyPid(s, 'c');
      return p !== undefined && p !== before[2];
    });
    await s.settled();
    const after = names.map((n) => readyPid(s, n));
    assert.deepEqual([after[0], after[1], after[3]], [before[0], before[1], before[3]]);
  });

  it(
    'a theme edit and a format-only edit reconcile nothing; a burst of saves reconciles once',
    T,
    async () => {
      h.write(h.files.user, servers({ a: fixtureConfig() }));
      const s = await h.session();
      await until('a', () => readyPid(s, 'a'));
      await s.settled();
      const passes: string[] = [];
      s.on('change', (name) => {
        if (name) passes.push(name);
      });
      h.write(h.files.user, { ...servers({ a: fixtureConfig() }), ui: { theme: 'dark' } });
      await sleep(400);
      h.write(
        h.files.user,
        `// comment\n${JSON.stringify({ ui: { theme: 'dark' }, ...servers({ a: fixtureConfig() }) })}`,
      );
      await sleep(400);
      assert.deepEqual(passes, []);

      for (let i = 0; i < 10; i++) {
        h.write(h.files.user, servers({ a: fixtureConfig([`--tools=v${i}`]) }));
        await sleep(5);
      }
      await until(
        'final config live',
        () => s.kind('McpServer').get('a')?.status.tools[0] === 'v9' || undefined,
      );
      await s.settled();
      assert.deepEqual(passes, ['a'], 'one pass for the whole burst');
      assert.equal(h.pool.count('a'), 2);
    },
  );

  it(
    'excluded: adding excludes and drops tools; removing reconnects; gating lands before connect',
    T,
    async () => {
      h.write(h.files.user, servers({ a: fixtureConfig(), b: fixtureConfig() }));
      const s = await h.session();
      const pid = await until('a', () => readyPid(s, 'a'));
      const bPid = await until('b', () => readyPid(s, 'b'));
      h.write(h.files.user, {
        ...servers({ a: fixtureConfig(), b: fixtureConfig() }),
        mcp: { excluded: ['a'] },
      });
      await until(
        'a excluded',
        () => condition(s.kind('McpServer').get('a'), 'Admitted') === 'False/Excluded',
      );
      assert.equal(s.registry.get('a'), undefined);
      assert.equal(condition(s.kind('McpServer').get('a'), 'Ready'), 'False/NotAdmitted');
      await until('a process gone', () => !pidAlive(pid));
      assert.equal(s.kind('McpServer').why('a').reason, 'Excluded');
      assert.equal(readyPid(s, 'b'), bPid, 'b untouched');

      h.write(h.files.user, servers({ a: fixtureConfig(), b: fixtureConfig() }));
      await until('a back', () => readyPid(s, 'a'));

      // A new server and its exclusion in one save: it must never be acquired.
      h.write(h.files.user, {
        ...servers({ a: fixtureConfig(), b: fixtureConfig(), c: fixtureConfig() }),
        mcp: { excluded: ['c'] },
      });
      await until(
        'c seen',
        () => condition(s.kind('McpServer').get('c'), 'Admitted') === 'False/Excluded',
      );
      await s.settled();
      assert.equal(h.pool.count('c'), 0);
    },
  );

  it(
    'ceiling: --allowed-mcp-server-names caps the settings allowlist, which can narrow inside it',
    T,
    async () => {
      const three = servers({ a: fixtureConfig(), b: fixtureConfig(), c: fixtureConfig() });
      h.write(h.files.user, { ...three, mcp: { allowed: ['a', 'b', 'c'] } });
      const s = await h.session({ ceiling: ['a', 'b'] });
      await until('a,b ready', () => readyPid(s, 'a') && readyPid(s, 'b'));
      await s.settled();
      assert.equal(condition(s.kind('McpServer').get('c'), 'Admitted'), 'False/NotAllowed');
      assert.equal(h.pool.count('c'), 0);
      assert.match(s.kind('McpServer').why('c').action, /--allowed-mcp-server-names=a,b/);

      h.write(h.files.user, { ...three, mcp: { allowed: ['a'] } });
      await until(
        'b narrowed out',
        () => condition(s.kind('McpServer').get('b'), 'Admitted') === 'False/NotAllowed',
      );
      assert.ok(readyPid(s, 'a'));
      assert.equal(
        s.kind('McpServer').why('b').reason,
        'NotAllowed',
        'filtered by the allowlist is NotAllowed, not Removed',
      );

      h.write(h.files.user, { ...three, mcp: { allowed: [] } });
      await until(
        'all denied',
        () => condition(s.kind('McpServer').get('a'), 'Admitted') === 'False/NotAllowed',
      );
      assert.equal(s.registry.entries().size, 0);
    },
  );

  it(
    'approval gate: a pending project server never acquires until approved; rejected stays down',
    T,
    async () => {
      h.write(h.files.project, {
        mcpServers: { p: { type: 'stdio', ...fixtureConfig(['--tools=pt']) } },
      });
      const s = await h.session();
      const prompted: string[] = [];
      s.on('pendingApproval', (server) => prompted.push(server.name));
      await until(
        'p pending',
        () => condition(s.kind('McpServer').get('p'), 'Admitted') === 'False/PendingApproval',
      );
      await s.reload();
      await s.settled();
      assert.equal(h.pool.count('p'), 0, 'never acquired while pending');
      assert.equal(s.kind('McpServer').why('p').reason, 'PendingApproval');
      assert.ok(
        s
          .eventList()
          .some((e) => e.reason === 'PendingApproval' && e.involvedObject === 'server/p'),
      );

      await s.kind('McpServer').approve('p', s.kind('McpServer').subject('p').hash);
      await until('p ready', () => readyPid(s, 'p'));
      assert.equal(condition(s.kind('McpServer').get('p'), 'Admitted'), 'True/Approved');

      await s.kind('McpServer').reject('p', s.kind('McpServer').subject('p').hash);
      await until(
        'p down',
        () => condition(s.kind('McpServer').get('p'), 'Admitted') === 'False/Rejected',
      );
      assert.equal(s.registry.get('p'), undefined);
      const acquiredBefore = h.pool.count('p');
      await s.reload();
      assert.equal(h.pool.count('p'), acquiredBefore, 'rejected stays down across reloads');

      // An unrelated edit does not prompt again; an edit of p itself does (rule 8).
      const promptsBefore = prompted.length;
      h.write(h.files.user, servers({ other: fixtureConfig() }));
      await until('other ready', () => readyPid(s, 'other'));
      await s.settled();
      assert.equal(prompted.length, promptsBefore);
      assert.equal(condition(s.kind('McpServer').get('p'), 'Admitted'), 'False/Rejected');

      h.write(h.files.project, { mcpServers: { p: fixtureConfig(['--tools=pt2']) } });
      await until(
        'p promptable again',
        () => condition(s.kind('McpServer').get('p'), 'Admitted') === 'False/PendingApproval',
      );
      await until('prompted again', () => prompted.length === promptsBefore + 1);
      assert.equal(h.pool.count('p'), acquiredBefore);
    },
  );

  it('approve for this session admits without persisting', T, async () => {
    h.write(h.files.project, { mcpServers: { p: fixtureConfig() } });
    const s = await h.session();
    await until(
      'p pending',
      () => condition(s.kind('McpServer').get('p'), 'Admitted') === 'False/PendingApproval',
    );
    await s
      .kind('McpServer')
      .approve('p', s.kind('McpServer').subject('p').hash, { sessionOnly: true });
    await until('p ready', () => readyPid(s, 'p'));
    assert.equal(condition(s.kind('McpServer').get('p'), 'Admitted'), 'True/ApprovedForSession');
    assert.equal(
      h.approvals.getState(h.workspace, 'p', s.desired().kinds.McpServer.servers.p.config),
      'pending',
    );
  });

  it(
    'a decision names the config shown: a stale hash or --hash prefix decides nothing',
    T,
    async () => {
      h.write(h.files.project, { mcpServers: { p: fixtureConfig(['--tools=shown']) } });
      const s = await h.session();
      await until(
        'p pending',
        () => condition(s.kind('McpServer').get('p'), 'Admitted') === 'False/PendingApproval',
      );
      const shown = s.kind('McpServer').subject('p');
      h.write(h.files.project, { mcpServers: { p: fixtureConfig(['--tools=swapped']) } });
      await until('p swapped', () => s.kind('McpServer').subject('p').hash !== shown.hash);
      const current = s.kind('McpServer').subject('p');
      for (const sessionOnly of [false, true])
        await assert.rejects(
          s.kind('McpServer').approve('p', shown.hash, { sessionOnly }),
          (err: Error) => {
            assert.ok(err instanceof StaleDecisionError);
            assert.equal(err.current.hash, current.hash);
            assert.match(err.message, /nothing was decided/);
            assert.match(err.message, /--tools=swapped/);
            return true;
          },
        );
      await assert.rejects(s.kind('McpServer').reject('p', shown.hash), StaleDecisionError);
      // --hash prefixes: too short, not hex, another config's.
      for (const pin of [current.hash.slice(0, 7), 'zzzzzzzzzz', shown.hash.slice(0, 12)])
        assert.throws(() => s.kind('McpServer').subject('p', pin), StaleDecisionError);
      assert.equal(
        s.kind('McpServer').subject('p', current.hash.slice(0, 8).toUpperCase()).hash,
        current.hash,
      );
      await s.settled();
      assert.equal(condition(s.kind('McpServer').get('p'), 'Admitted'), 'False/PendingApproval');
      assert.equal(h.pool.count('p'), 0, 'never acquired');
      assert.equal(h.approvals.recordOf(h.workspace, 'p'), undefined, 'nothing written');
    },
  );

  it('untrusted folder: nothing connects', T, async () => {
    h.write(h.files.user, {
      ...servers({ a: fixtureConfig() }),
      security: { folderTrust: { enabled: true } },
    });
    h.write(h.files.trust, { [h.workspace]: 'DO_NOT_TRUST' });
    const s = await h.session();
    await until(
      'a untrusted',
      () => condition(s.kind('McpServer').get('a'), 'Admitted') === 'False/UntrustedFolder',
    );
    await s.settled();
    assert.equal(h.pool.count('a'), 0);
    assert.equal(s.conditions.find((c) => c.type === 'Trusted')?.status, 'False');

    h.write(h.files.trust, { [h.workspace]: 'TRUST_FOLDER' });
    await until('a ready once trusted', () => readyPid(s, 'a'));
  });

  it('tool-filter edits keep the process; the registry is re-filtered in place', T, async () => {
    h.write(h.files.user, servers({ a: fixtureConfig(['--tools=r,w']) }));
    const s = await h.session();
    const pid = await until('a', () => readyPid(s, 'a'));
    h.write(
      h.files.user,
      servers({ a: fixtureConfig(['--tools=r,w'], { excludeTools: ['w'], description: 'x' }) }),
    );
    await until('filtered', () => s.kind('McpServer').get('a')?.status.tools.join() === 'r');
    assert.equal(readyPid(s, 'a'), pid);
    assert.equal(h.pool.count('a'), 1);
  });

  it(
    'rolling update never leaves the server without tools, and rolls back on failure',
    T,
    async () => {
      h.write(h.files.user, servers({ a: fixtureConfig(['--tools=t', '--stderr=v1']) }));
      const s = await h.session();
      const pid = await until('a', () => readyPid(s, 'a'));
      let gaps = 0;
      s.registry.onChange((name) => {
        if (name === 'a' && !s.registry.get('a')) gaps++;
      });
      h.write(h.files.user, servers({ a: fixtureConfig(['--tools=t', '--stderr=v2']) }));
      const pid2 = await until('rolled', () => {
        const p = readyPid(s, 'a');
        return p !== pid ? p : undefined;
      });
      assert.equal(gaps, 0);

      // The new config cannot start: the old connection keeps serving.
      h.write(h.files.user, servers({ a: fixtureConfig(['--tools=t', '--exit-at-start']) }));
      await until(
        'rollout failed',
        () => condition(s.kind('McpServer').get('a'), 'UpToDate') === 'False/RolloutFailed',
      );
      assert.equal(gaps, 0);
      assert.equal(readyPid(s, 'a'), pid2);
      assert.deepEqual(s.kind('McpServer').get('a')?.status.tools, ['t']);
      assert.ok(pidAlive(pid2));
    },
  );

  it('Recreate drops the old connection before starting the new one', T, async () => {
    h.write(
      h.files.user,
      servers({ a: fixtureConfig(['--stderr=v1'], { updateStrategy: 'Recreate' }) }),
    );
    const s = await h.session();
    const pid = await until('a', () => readyPid(s, 'a'));
    const order: string[] = [];
    s.registry.onChange(() => order.push(s.registry.get('a') ? 'up' : 'down'));
    h.write(
      h.files.user,
      servers({ a: fixtureConfig(['--stderr=v2'], { updateStrategy: 'Recreate' }) }),
    );
    await until('restarted', () => {
      const p = readyPid(s, 'a');
      return p !== undefined && p !== pid;
    });
    assert.deepEqual(order, ['down', 'up']);
  });

  it('a crash loop reaches CrashLoopBackOff and recovers when the server is fixed', T, async () => {
    h.write(h.files.user, servers({ a: fixtureConfig(['--exit-after=150']) }));
    const s = await h.session();
    await until(
      'crash loop',
      () => condition(s.kind('McpServer').get('a'), 'Ready') === 'False/CrashLoopBackOff',
      {
        timeoutMs: 20_000,
      },
    );
    assert.match(
      s
        .kind('McpServer')
        .get('a')
        ?.status.conditions.find((c) => c.type === 'Ready')?.message ?? '',
      /next retry at/,
    );
    assert.equal(s.registry.get('a'), undefined, 'a dead server shows no tools');
    assert.ok(s.eventList().some((e) => e.reason === 'BackOff'));
    h.write(h.files.user, servers({ a: fixtureConfig() }));
    const pid = await until('recovered', () => readyPid(s, 'a'), { timeoutMs: 20_000 });
    await sleep(300);
    assert.equal(readyPid(s, 'a'), pid, 'stays up once fixed');
  });

  it('invalid JSON keeps the last good set running; fixing it recovers', T, async () => {
    h.write(h.files.user, servers({ a: fixtureConfig() }));
    const s = await h.session();
    const pid = await until('a', () => readyPid(s, 'a'));
    h.write(h.files.user, '{ "mcpServers": { "a": ');
    await until(
      'ConfigValid False',
      () => s.conditions.find((c) => c.type === 'ConfigValid')?.status === 'False',
    );
    const msg = s.conditions.find((c) => c.type === 'ConfigValid')?.message ?? '';
    assert.ok(msg.includes(h.files.user), msg);
    assert.match(msg, /:1:\d+/);
    assert.equal(s.conditions.find((c) => c.type === 'ConfigValid')?.reason, 'ParseError');
    assert.equal(readyPid(s, 'a'), pid);
    assert.ok(s.eventList().some((e) => e.reason === 'ConfigInvalid' && e.type === 'Warning'));
    // Valid JSON that does not validate: InvalidConfig, naming the field; still nothing changes.
    h.write(
      h.files.user,
      servers({ a: fixtureConfig(), b: { command: 'x', args: 'a b' as unknown as string[] } }),
    );
    await until('InvalidConfig', () =>
      s.conditions.find((c) => c.type === 'ConfigValid' && c.reason === 'InvalidConfig'),
    );
    assert.match(
      s.conditions.find((c) => c.type === 'ConfigValid')?.message ?? '',
      /mcpServers\.b\.args: expected an array of strings, got a string/,
    );
    assert.equal(s.kind('McpServer').get('b'), undefined);
    assert.equal(readyPid(s, 'a'), pid);
    h.write(h.files.user, servers({ a: fixtureConfig(), b: fixtureConfig() }));
    await until('b ready after fix', () => readyPid(s, 'b'));
    assert.equal(s.conditions.find((c) => c.type === 'ConfigValid')?.status, 'True');
    assert.equal(readyPid(s, 'a'), pid);
  });

  it('diff previews a reload and acquires nothing', T, async () => {
    h.write(
      h.files.user,
      servers({ keep: fixtureConfig(), gone: fixtureConfig(), edit: fixtureConfig() }),
    );
    const s = await h.session({ debounceMs: 60_000 });
    await until('ready', () => readyPid(s, 'keep') && readyPid(s, 'gone') && readyPid(s, 'edit'));
    h.write(h.files.user, {
      ...servers({
        keep: fixtureConfig(),
        edit: fixtureConfig(['--tools=z']),
        added: fixtureConfig(),
        blocked: fixtureConfig(),
      }),
      mcp: { excluded: ['blocked'] },
    });
    const acquired = h.pool.acquired.length;
    const { lines, configWarnings } = await s.diff();
    assert.deepEqual(configWarnings, []);
    assert.deepEqual(
      lines.map((l) => `${l.action} ${l.name}${l.detail ? ` ${l.detail}` : ''}`),
      ['add added', 'blocked blocked Excluded', 'restart edit args', 'remove gone', 'keep keep'],
    );
    assert.equal(h.pool.acquired.length, acquired);
    await s.reload();
    assert.ok(readyPid(s, 'added'));
    assert.equal(s.kind('McpServer').get('gone'), undefined);
  });
});
