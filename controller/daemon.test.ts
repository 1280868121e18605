import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { approvalHashOf } from '../api/index.js';
import { ApprovalStore } from '../approvals/index.js';
import { until } from '../testing/until.js';
import { Daemon, DaemonStoppingError } from './daemon.js';
import type { Session } from './session.js';
import { tempDir } from '../testing/temp-dir.js';
import { pidAlive } from '../proc/index.js';

const FIXTURE = fileURLToPath(new URL('../e2e/fixtures/stdio-server.js', import.meta.url));
const temp = tempDir('mcpctl-daemon-');
const root = temp.path;
after(temp.remove);

const readyPid = (s: Session, name: string) => {
  const server = s.kind('McpServer').get(name);
  const ready = server?.status.conditions.find((c) => c.type === 'Ready')?.status === 'True';
  return ready ? server?.status.pid : undefined;
};

describe('Daemon', () => {
  it(
    'shares one pool between sessions, closes a session with its last opener, stops everything',
    { timeout: 60_000 },
    async () => {
      const home = path.join(root, 'home');
      const ws = path.join(root, 'ws');
      const ws2 = path.join(root, 'ws2');
      for (const d of [path.join(home, '.qwen'), ws, ws2]) mkdirSync(d, { recursive: true });
      writeFileSync(
        path.join(home, '.qwen', 'settings.json'),
        // An absolute cwd: it runs in one place for both workspaces, so they may share it.
        JSON.stringify({
          mcpServers: { fx: { command: process.execPath, args: [FIXTURE], cwd: root } },
        }),
      );
      const daemon = await Daemon.start({
        workspace: ws,
        home,
        systemSettingsPath: path.join(root, 'none.json'),
        env: { MCPCTL_APPROVALS_PATH: path.join(root, 'approvals.json') },
        stateFile: path.join(root, 'children.json'),
        drainDelayMs: 0,
        debounceMs: 60,
      });
      let pid = 0;
      try {
        assert.equal(daemon.defaultSession.id, 'default');
        await until(
          'fx Ready in the default session',
          () => readyPid(daemon.defaultSession, 'fx') !== undefined,
        );
        pid = readyPid(daemon.defaultSession, 'fx')!;

        const a = await daemon.open({ workspace: ws2 });
        const b = await daemon.open({ workspace: ws2 });
        assert.equal(a.session, b.session, 'same key, same session');
        assert.equal(daemon.findByWorkspace(ws2), a.session);
        assert.equal(daemon.findByWorkspace(ws), daemon.defaultSession);
        await until(
          'fx Ready in the second session',
          () => readyPid(a.session, 'fx') !== undefined,
        );
        assert.equal(readyPid(a.session, 'fx'), pid, 'one pooled connection for both sessions');
        assert.deepEqual(
          daemon.pool.stats()[0]?.refs.slice().sort(),
          [a.session.id, 'default'].sort(),
        );

        a.release();
        assert.equal(daemon.sessions().length, 2, 'one opener still holds it');
        b.release();
        await until('the second session to close', () => daemon.sessions().length === 1);
        await until(
          'its lease to be released',
          () => (daemon.pool.stats()[0]?.refs ?? []).length === 1,
        );
        assert.deepEqual(daemon.pool.stats()[0]?.refs, ['default']);
        assert.ok(pidAlive(pid), 'the default session still uses it');
      } finally {
        await daemon.stop();
      }
      assert.deepEqual(daemon.pool.stats(), []);
      assert.equal(pidAlive(pid), false, 'stop ended the server process');
      await assert.rejects(daemon.open({ workspace: ws2 }), DaemonStoppingError);
    },
  );

  it(
    'a decision written by another process reaches the session without a restart',
    { timeout: 60_000 },
    async () => {
      const base = path.join(root, 'outside');
      const home = path.join(base, 'home');
      const ws = path.join(base, 'ws');
      for (const d of [home, ws]) mkdirSync(d, { recursive: true });
      const config = { command: process.execPath, args: [FIXTURE] };
      // A project server: gated, so pending until someone approves it.
      writeFileSync(path.join(ws, '.mcp.json'), JSON.stringify({ mcpServers: { fx: config } }));
      const approvalsFile = path.join(base, 'approvals.json');
      const daemon = await Daemon.start({
        workspace: ws,
        home,
        systemSettingsPath: path.join(base, 'none.json'),
        env: { MCPCTL_APPROVALS_PATH: approvalsFile },
        drainDelayMs: 0,
        debounceMs: 60,
      });
      let pid = 0;
      try {
        const session = daemon.defaultSession;
        await until(
          'fx pending',
          () =>
            session
              .kind('McpServer')
              .get('fx')
              ?.status.conditions.find((c) => c.type === 'Admitted')?.reason === 'PendingApproval',
        );
        assert.equal(daemon.pool.stats().length, 0, 'nothing started before approval');
        // Another process: its own store on the same file.
        const other = await ApprovalStore.open({ path: approvalsFile });
        await other.approve(ws, 'fx', approvalHashOf(config));
        await until('fx Ready after the approval', () => readyPid(session, 'fx') !== undefined);
        pid = readyPid(session, 'fx')!;
        await other.reject(ws, 'fx', approvalHashOf(config));
        await until('fx down after the rejection', () => readyPid(session, 'fx') === undefined);
        await until('the server process to end', () => !pidAlive(pid));
        assert.equal(
          session
            .kind('McpServer')
            .get('fx')
            ?.status.conditions.find((c) => c.type === 'Admitted')?.reason,
          'Rejected',
        );
      } finally {
        await daemon.stop();
      }
      assert.equal(pid > 0 && pidAlive(pid), false);
    },
  );
  it(
    "an opener of the daemon's folder without flags gets the folder's configuration (in its own environment)",
    { timeout: 60_000 },
    async () => {
      const base = path.join(root, 'folder');
      const home = path.join(base, 'home');
      const ws = path.join(base, 'ws');
      for (const d of [home, ws]) mkdirSync(d, { recursive: true });
      const config = path.join(base, 'mcp-config.json');
      const own = path.join(base, 'own.json');
      const server = { command: process.execPath, args: [FIXTURE], cwd: base };
      writeFileSync(config, JSON.stringify({ mcpServers: { fx: server } }));
      writeFileSync(own, JSON.stringify({ mcpServers: { mine: server } }));
      const daemon = await Daemon.start({
        workspace: ws,
        mcpConfigPath: config,
        home,
        systemSettingsPath: path.join(base, 'none.json'),
        env: { MCPCTL_APPROVALS_PATH: path.join(base, 'approvals.json') },
        drainDelayMs: 0,
        debounceMs: 60,
      });
      try {
        const plain = await daemon.open({ workspace: ws });
        assert.equal(plain.session, daemon.defaultSession, "the daemon's environment: its session");
        const agent = await daemon.open({
          workspace: ws,
          env: { vars: { PATH: process.env.PATH ?? '', AGENT: 'b' }, label: 'serve pid 2' },
        });
        assert.notEqual(agent.session, daemon.defaultSession, 'another environment, another key');
        assert.equal(agent.session.flags.mcpConfigPath, daemon.defaultSession.flags.mcpConfigPath);
        await until('fx Ready in both', () =>
          [daemon.defaultSession, agent.session].every((s) => readyPid(s, 'fx') !== undefined),
        );
        // A stdio server starts in its session's environment, so an agent's environment is in
        // its connectionId (api/session-env.ts): the same server, its own process.
        const idOf = (s: Session) => s.kind('McpServer').get('fx')?.status.connectionId;
        assert.notEqual(idOf(agent.session), idOf(daemon.defaultSession));
        assert.notEqual(readyPid(agent.session, 'fx'), readyPid(daemon.defaultSession, 'fx'));
        const twin = await daemon.open({
          workspace: ws,
          env: { vars: { PATH: process.env.PATH ?? '', AGENT: 'b' }, label: 'serve pid 3' },
        });
        assert.equal(twin.session, agent.session, 'an equal environment joins it');
        twin.release();
        const mine = await daemon.open({ workspace: ws, mcpConfigPath: own });
        await mine.session.settled();
        assert.deepEqual(
          Object.keys(mine.session.kind('McpServer').servers()),
          ['mine'],
          'its own --mcp-config, exactly',
        );
        for (const h of [plain, agent, mine]) h.release();
      } finally {
        await daemon.stop();
      }
    },
  );
});
