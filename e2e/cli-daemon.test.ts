/**
 * e2e: the built `mcpctl daemon` and CLI as real processes — start, list, hot reload, stop,
 * hard kill and restart, refusals. Real servers: the stdio fixture and @modelcontextprotocol's
 * server-memory from the npm registry.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  chmodSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { McpServerList } from '../api/index.js';
import type { EventList, SessionList } from '../cli/objects.js';
import { CLI, TestEnv, condition, isAlive, isReady, processesMentioning } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

describe('mcpctl daemon (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('a daemon started by hand does not proxy a `mcpctl serve` entry into itself', T, async () => {
    // The agent's own entry, in the file the daemon watches; the daemon starts it as a server.
    env.write(env.userSettingsPath, {
      mcpServers: {
        fx: env.fixture('fx', ['--tools=alpha']),
        self: { command: process.execPath, args: [CLI, 'serve', '--workspace', env.workspace] },
      },
    });
    await env.startDaemon();
    const servers = await env.untilServers(
      (m) => isReady(m.get('fx')) && isReady(m.get('self')),
      'fx and self Ready',
    );
    assert.deepEqual(servers.get('self')?.status.tools, [], 'mcpctl does not proxy itself');
    assert.deepEqual(servers.get('fx')?.status.tools, ['alpha']);
    const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
    assert.equal(sessions.items.length, 1, 'the inner serve opened no session of its own');
  });

  it(
    'lists the configured servers Ready with pids; socket 0600 in a 0700 directory',
    T,
    async () => {
      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx', ['--tools=alpha,beta']), memory: env.memoryServer() },
      });
      await env.startDaemon();
      await env.untilServers(
        (m) => m.size === 2 && [...m.values()].every(isReady),
        'both servers Ready',
      );

      const list = await env.json<McpServerList>(['get', 'servers', '-o', 'json']);
      assert.equal(list.apiVersion, 'mcpctl.dev/v1alpha1');
      assert.equal(list.kind, 'McpServerList');
      assert.deepEqual(
        list.items.map((s) => s.metadata.name),
        ['fx', 'memory'],
      );
      for (const s of list.items) {
        assert.equal(s.kind, 'McpServer');
        assert.equal(typeof s.status.pid, 'number');
        assert.ok(isAlive(s.status.pid!), `${s.metadata.name} pid ${s.status.pid} runs`);
        assert.match(s.status.connectionId!, new RegExp(`^${s.metadata.name}::[0-9a-f]{16}$`));
        assert.match(s.status.approvalHash!, /^[0-9a-f]{64}$/);
        assert.equal(s.metadata.annotations?.['mcpctl.dev/scope'], 'user');
        assert.equal(s.metadata.annotations?.['mcpctl.dev/source'], env.userSettingsPath);
        assert.deepEqual(
          s.status.conditions.map((c) => [c.type, c.status, c.reason]),
          [
            ['Admitted', 'True', 'NotGated'],
            ['Ready', 'True', 'Connected'],
            ['UpToDate', 'True', 'Current'],
            // Its first listing is pinned (trust on first use): what it offers is as accepted.
            ['ToolsPinned', 'True', 'Pinned'],
          ],
        );
        for (const c of s.status.conditions)
          assert.equal(c.observedGeneration, s.metadata.generation);
      }
      const [fx, memory] = list.items;
      assert.deepEqual(fx.status.tools, ['alpha', 'beta']);
      assert.ok(
        memory.status.tools.includes('read_graph'),
        'the real memory server lists its tools',
      );
      assert.equal(memory.spec.env?.MEMORY_FILE_PATH, '<redacted>', 'env values are redacted');
      const shown = await env.json<McpServerList>([
        'get',
        'servers',
        '-o',
        'json',
        '--show-secrets',
      ]);
      assert.equal(shown.items[1].spec.env?.MEMORY_FILE_PATH, path.join(env.root, 'memory.jsonl'));

      assert.equal(statSync(env.socket).mode & 0o777, 0o600, 'socket mode 0600');
      assert.equal(statSync(path.dirname(env.socket)).mode & 0o777, 0o700, 'socket dir mode 0700');

      const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
      assert.equal(sessions.kind, 'SessionList');
      assert.equal(sessions.items.length, 1);
      const session = sessions.items[0];
      assert.deepEqual(Object.keys(session).sort(), [
        'apiVersion',
        'kind',
        'metadata',
        'spec',
        'status',
      ]);
      assert.deepEqual(session.metadata, { name: 'default' });
      assert.deepEqual(session.spec, {
        workspace: realpathSync(env.workspace),
        ceiling: null,
        mcpConfig: null,
        lspCeiling: null,
        lspConfig: null,
      });
      assert.deepEqual(session.status.servers, ['fx', 'memory']);
      assert.equal(session.status.conditions.find((c) => c.type === 'ConfigValid')?.status, 'True');
      assert.equal(session.status.conditions.find((c) => c.type === 'Trusted')?.status, 'True');

      const events = await env.json<EventList>(['get', 'events', '-o', 'json']);
      assert.equal(events.kind, 'EventList');
      const connected = events.items.find(
        (e) => e.involvedObject === 'server/fx' && e.reason === 'Connected',
      );
      assert.ok(connected, 'a Connected event for server/fx');
      assert.deepEqual(Object.keys(connected).sort(), [
        'count',
        'firstTimestamp',
        'involvedObject',
        'lastTimestamp',
        'message',
        'reason',
        'type',
      ]);
      assert.equal(connected.type, 'Normal');

      const table = await env.cli(['get', 'servers']);
      assert.equal(table.code, 0);
      const [header, ...rows] = table.stdout.trimEnd().split('\n');
      assert.deepEqual(header.split(/\s{2,}/), [
        'NAME',
        'SCOPE',
        'ADMITTED',
        'READY',
        'TOOLS',
        'AGE',
        'REASON',
      ]);
      assert.match(rows[0], /^fx\s+user\s+True\s+True\s+2\s+\S+\s+Connected$/);
      assert.doesNotMatch(table.stdout, /\u001b\[/, 'no colour when stdout is not a terminal');
      const wide = await env.cli(['get', 'servers', '-o', 'wide']);
      assert.match(wide.stdout.split('\n')[0], /REASON\s+CONNECTION\s+PID$/);
      assert.match(wide.stdout, new RegExp(`fx::[0-9a-f]{16}\\s+${fx.status.pid}`));
      const names = await env.cli(['get', 'servers', '-o', 'name']);
      assert.equal(names.stdout, 'server/fx\nserver/memory\n');
      const yaml = await env.cli(['get', 'servers', 'fx', '-o', 'yaml']);
      assert.match(yaml.stdout, /^apiVersion: mcpctl\.dev\/v1alpha1\nkind: McpServer\n/);
    },
  );

  it('hot reload: add, edit, remove one server; every other pid stays', T, async () => {
    const servers: Record<string, unknown> = { memory: env.memoryServer(), fx: env.fixture('fx') };
    env.write(env.userSettingsPath, { mcpServers: servers });
    const daemon = await env.startDaemon();
    const before = await env.untilServers(
      (m) => m.size === 2 && [...m.values()].every(isReady),
      'both Ready',
    );
    const pidOf = (m: typeof before, name: string) => m.get(name)?.status.pid;

    // Add: appears Ready without a daemon restart; the others keep their processes.
    env.write(env.userSettingsPath, {
      mcpServers: { ...servers, added: env.fixture('added', ['--tools=one']) },
    });
    const added = await env.untilServers((m) => isReady(m.get('added')), 'the added server Ready');
    assert.equal(daemon.child.exitCode, null, 'the daemon kept running');
    assert.equal(pidOf(added, 'memory'), pidOf(before, 'memory'));
    assert.equal(pidOf(added, 'fx'), pidOf(before, 'fx'));
    const firstPid = pidOf(added, 'added')!;

    // Edit its args: a new process for it, the very same ones for the others.
    env.write(env.userSettingsPath, {
      mcpServers: { ...servers, added: env.fixture('added', ['--tools=one,two']) },
    });
    const edited = await env.untilServers(
      (m) => isReady(m.get('added')) && pidOf(m, 'added') !== firstPid,
      'the edited server restarted',
    );
    assert.deepEqual(edited.get('added')!.status.tools, ['one', 'two']);
    assert.equal(edited.get('added')!.metadata.generation, 2);
    assert.equal(pidOf(edited, 'memory'), pidOf(before, 'memory'));
    assert.equal(pidOf(edited, 'fx'), pidOf(before, 'fx'));
    await until(`old pid ${firstPid} to end`, () => !isAlive(firstPid));

    // Remove: gone from the list, and `why` says Removed.
    const secondPid = pidOf(edited, 'added')!;
    env.write(env.userSettingsPath, { mcpServers: servers });
    const removed = await env.untilServers((m) => !m.has('added'), 'the server removed');
    assert.equal(pidOf(removed, 'memory'), pidOf(before, 'memory'));
    assert.equal(pidOf(removed, 'fx'), pidOf(before, 'fx'));
    await until('the removed server process to end', () => !isAlive(secondPid));
    const why = await env.cli(['why', 'added', '-o', 'json']);
    assert.equal(why.code, 0, why.stderr);
    assert.equal((JSON.parse(why.stdout) as { reason: string }).reason, 'Removed');
    const whyText = await env.cli(['why', 'added']);
    assert.match(whyText.stdout, /^Removed: /);
  });

  it('stop: exit 0, socket removed, no child process left', T, async () => {
    env.write(env.userSettingsPath, {
      mcpServers: {
        fx: env.fixture('fx', [`--grandchild-pid-file=${env.pidFile('grandchild')}`]),
        memory: env.memoryServer(),
      },
    });
    const daemon = await env.startDaemon();
    const servers = await env.untilServers(
      (m) => m.size === 2 && [...m.values()].every(isReady),
      'both Ready',
    );
    const pids = [...servers.values()].map((s) => s.status.pid!);
    const grandchild = Number(readFileSync(env.pidFile('grandchild'), 'utf8'));
    env.trackPid(grandchild);
    assert.ok(isAlive(grandchild));

    const stop = await env.cli(['stop']);
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, /stopped/);
    // `stop` returns once the daemon closed everything: no waiting needed for the children.
    for (const pid of [...pids, grandchild])
      assert.equal(isAlive(pid), false, `pid ${pid} is gone`);
    assert.deepEqual(await daemon.exited, { code: 0, signal: null });
    assert.equal(existsSync(env.socket), false, 'socket removed');
    assert.deepEqual(processesMentioning(env.root), []);
    const after = await env.cli(['get', 'servers']);
    assert.equal(after.code, 1);
    assert.equal(
      after.stderr.trim(),
      `no mcpctl daemon at ${env.socket}; start one with 'mcpctl daemon'`,
    );

    // SIGTERM does the same.
    const again = await env.startDaemon();
    const second = await env.untilServers(
      (m) => m.size === 2 && [...m.values()].every(isReady),
      'Ready again',
    );
    again.child.kill('SIGTERM');
    assert.deepEqual(await again.exited, { code: 0, signal: null });
    for (const s of second.values()) assert.equal(isAlive(s.status.pid!), false);
    assert.equal(existsSync(env.socket), false);
  });

  it(
    'SIGKILL the daemon, start again: the old children are reaped and approvals hold',
    T,
    async () => {
      // Servers that outlive their stdin, as a careless server would: only reaping ends them.
      env.write(env.userSettingsPath, {
        mcpServers: { fx: env.fixture('fx', ['--ignore-stdin-end']) },
      });
      env.write(env.mcpJsonPath, {
        mcpServers: { proj: env.fixture('proj', ['--ignore-stdin-end']) },
      });
      const first = await env.startDaemon();
      await env.untilServers(
        (m) =>
          condition(m.get('proj'), 'Admitted')?.reason === 'PendingApproval' &&
          isReady(m.get('fx')),
        'fx Ready, proj pending',
      );
      const approve = await env.cli(['approve', 'proj']);
      assert.equal(approve.code, 0, approve.stderr);
      const before = await env.untilServers(
        (m) => isReady(m.get('proj')) && isReady(m.get('fx')),
        'both Ready',
      );
      const oldPids = [...before.values()].map((s) => s.status.pid!);

      first.child.kill('SIGKILL');
      await first.exited;
      for (const pid of oldPids) assert.ok(isAlive(pid), `pid ${pid} outlived the killed daemon`);
      assert.ok(existsSync(env.socket), 'a stale socket file is left behind');

      await env.startDaemon();
      await until('the old children to be reaped', () => oldPids.every((pid) => !isAlive(pid)));
      const after = await env.untilServers(
        (m) => isReady(m.get('proj')) && isReady(m.get('fx')),
        'both Ready again, proj without a new approval',
      );
      assert.equal(condition(after.get('proj'), 'Admitted')?.reason, 'Approved');
      for (const s of after.values()) assert.ok(!oldPids.includes(s.status.pid!), 'new processes');
      const approvals = JSON.parse(readFileSync(env.approvalsPath, 'utf8')) as Record<
        string,
        Record<string, { hash: string; status: string }>
      >;
      assert.deepEqual(approvals[realpathSync(env.workspace)]?.proj, {
        hash: after.get('proj')!.status.approvalHash,
        status: 'approved',
      });
    },
  );

  it(
    'refusals: no daemon, bad usage, a second daemon, an unsafe socket directory, unknown names',
    T,
    async () => {
      const none = await env.cli(['get', 'servers']);
      assert.equal(none.code, 1);
      assert.equal(
        none.stderr.trim(),
        `no mcpctl daemon at ${env.socket}; start one with 'mcpctl daemon'`,
      );
      for (const cmd of [['stop'], ['why', 'x'], ['approve', 'x'], ['diff'], ['reload']]) {
        const r = await env.cli(cmd);
        assert.equal(r.code, 1, cmd.join(' '));
        assert.match(r.stderr, /^no mcpctl daemon at /, cmd.join(' '));
      }
      const bad: string[][] = [
        ['get', 'pods'],
        ['get', 'servers', '-o', 'xml'],
        ['get', 'servers', '--bogus'],
        ['frobnicate'],
        ['wait', 'fx', '--for=condition=Ready'],
        ['wait', 'server/fx', '--for=Ready'],
        ['wait', 'server/fx', '--for=condition=Ready', '--timeout=soon'],
        ['wait', 'server/fx'],
        ['approve'],
        ['daemon', '--debounce-ms', 'fast'],
      ];
      for (const args of bad) {
        const r = await env.cli(args);
        assert.equal(r.code, 2, `${args.join(' ')} → 2 (${r.stderr})`);
        assert.ok(r.stderr.length > 0, `${args.join(' ')} says why`);
      }
      const help = await env.cli(['--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /Usage: mcpctl/);

      env.write(env.userSettingsPath, { mcpServers: { fx: env.fixture('fx') } });
      await env.startDaemon();
      const second = env.spawnDaemon(['daemon', '--workspace', env.workspace]);
      assert.deepEqual(await second.exited, { code: 1, signal: null });
      assert.match(second.stderr(), new RegExp(`a daemon is already running at ${env.socket}`));

      const open = path.join(env.root, 'open');
      mkdirSync(open);
      chmodSync(open, 0o777);
      const unsafe = env.spawnDaemon(['daemon', '--socket', path.join(open, 's.sock')]);
      assert.deepEqual(await unsafe.exited, { code: 1, signal: null });
      assert.match(unsafe.stderr(), /writable by everyone.*refusing/);

      const notSocket = path.join(env.root, 'run', 'plain-file');
      writeFileSync(notSocket, 'x');
      const blocked = env.spawnDaemon(['daemon', '--socket', notSocket]);
      assert.deepEqual(await blocked.exited, { code: 1, signal: null });
      assert.match(blocked.stderr(), /is not a socket/);

      await env.untilServers((m) => isReady(m.get('fx')), 'fx Ready');
      const unknown = await env.cli(['describe', 'server', 'fxx']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no server named fxx.*did you mean fx\?/);
      const notGated = await env.cli(['approve', 'fx']);
      assert.equal(notGated.code, 1);
      assert.match(notGated.stderr, /needs no approval/);
    },
  );

  it(
    '--http on a port in use: exit 1 naming the address, before any server starts',
    T,
    async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const { port } = taken.address() as AddressInfo;
      try {
        // A shell writes the marker the moment it is spawned: it shows any start, however short.
        const marker = path.join(env.root, 'started');
        env.write(env.userSettingsPath, {
          mcpServers: {
            fx: { command: '/bin/sh', args: ['-c', `echo started > '${marker}'; exec sleep 60`] },
          },
        });
        const daemon = env.spawnDaemon([
          'daemon',
          '--workspace',
          env.workspace,
          '--http',
          `127.0.0.1:${port}`,
        ]);
        assert.deepEqual(await daemon.exited, { code: 1, signal: null });
        assert.match(
          daemon.stderr(),
          new RegExp(
            `cannot serve HTTP on 127\\.0\\.0\\.1:${port}: the port is in use; pass another --http`,
          ),
        );
        assert.ok(!existsSync(marker), 'no server was started');
        assert.deepEqual(processesMentioning(marker), [], 'no server process is left');
        assert.ok(!existsSync(env.socket), 'the socket is removed');
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }
    },
  );
});
