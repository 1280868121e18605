/**
 * Language servers through a real session (same reconciler, admission, approvals and pool
 * lifecycle as MCP servers), with the scriptable fake language server as real processes; the
 * entries are set through an injected store until the `.lsp.json` informer lands.
 */
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import {
  approvalHashOf,
  isLanguageServer,
  lspApprovalHashOf,
  type LanguageServerConfig,
  type LanguageServer,
} from '../api/index.js';
import { ApprovalStore, SessionApprovals } from '../approvals/index.js';
import { groupAlive } from '../proc/index.js';
import { spawnServer, type SpawnServer } from '../lsp/server-process.js';
import { fakeServer } from '../lsp/testing/servers.js';
import { createPool } from '../pool/index.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { createLspPool, type LspPool } from '../pool/lsp-pool.js';
import { createSession, type Session } from './session.js';
import { LspTestStore } from './testing/lsp-store.js';

const T = { timeout: 60_000 };

let dir: TempDir;
before(() => {
  dir = tempDir('mcpctl-session-lsp-');
});
after(() => dir.remove());

/** The fake server's entry as a `.lsp.json` would write it. */
function fake(more: LanguageServerConfig = {}): LanguageServerConfig {
  const o = fakeServer('/unused', 'normal');
  return {
    command: o.command,
    args: [...(o.args ?? [])],
    extensionToLanguage: { '.txt': 'plaintext' },
    startupTimeout: 10_000,
    shutdownTimeout: 1_000,
    ...more,
  };
}

function condition(s: LanguageServer | undefined, type: string): string | undefined {
  const c = s?.status.conditions.find((x) => x.type === type);
  return c ? `${c.status}/${c.reason}` : undefined;
}

function readyPid(s: Session, name: string): number | undefined {
  const ls = s.kind('LanguageServer').get(name);
  return condition(ls, 'Ready') === 'True/Connected' ? ls?.status.pid : undefined;
}

interface Notified {
  notifications: Array<{ method: string; params: unknown }>;
}

describe('session: language servers', T, () => {
  let n = 0;
  let ws: string;
  let spawned: number[];
  let lspPool: LspPool;
  let approvals: ApprovalStore;
  const sessions: Session[] = [];
  const mcpPool = createPool({ drainDelayMs: 0, graceMs: 300 });

  beforeEach(async () => {
    n += 1;
    ws = path.join(dir.path, `ws${n}`);
    mkdirSync(ws, { recursive: true });
    ws = realpathSync(ws);
    spawned = [];
    const counting: SpawnServer = async (command) => {
      const proc = await spawnServer(command);
      spawned.push(proc.pid);
      return proc;
    };
    lspPool = createLspPool({ drainDelayMs: 0, spawn: counting, killGraceMs: 300 });
    approvals = await ApprovalStore.open({ path: path.join(dir.path, `approvals${n}.json`) });
  });

  afterEach(async () => {
    for (const s of sessions.splice(0)) await s.close();
    await lspPool.close();
    for (const pid of spawned) assert.ok(!groupAlive(pid), `language server ${pid} left behind`);
  });

  after(() => mcpPool.close());

  async function session(store: LspTestStore, workspace = ws): Promise<Session> {
    const s = await createSession({
      workspace,
      home: dir.path,
      pool: mcpPool,
      lspPool,
      approvals,
      sessionApprovals: new SessionApprovals(),
      storeFactory: store.factory(),
      backoffBaseMs: 50,
      backoffCapMs: 200,
    });
    sessions.push(s);
    return s;
  }

  it(
    'a cli server is Ready with a pid; settings and routing edits keep it, a command edit replaces it',
    T,
    async () => {
      const store = new LspTestStore(ws);
      store.set({ fake: { config: fake({ settings: { fake: { level: 1 } } }) } });
      const s = await session(store);
      const registry: string[] = [];
      s.on('registry', (name, kind) =>
        registry.push(kind === 'LanguageServer' ? `languageserver/${name}` : name),
      );
      const pid = await until('fake ready', () => readyPid(s, 'fake'));
      assert.deepEqual(spawned, [pid]);
      const ls = s.kind('LanguageServer').get('fake');
      assert.equal(ls?.status.workspaceFolder, ws);
      assert.deepEqual(ls?.status.extensions, ['.txt']);
      assert.match(ls?.status.connectionId ?? '', /^fake::[0-9a-f]{16}$/);
      const [target] = s.lspTargets();
      assert.equal(target?.name, 'fake');
      assert.equal(target?.connection?.pid, pid);

      // settings: the same process hears didChangeConfiguration.
      store.set({ fake: { config: fake({ settings: { fake: { level: 2 } } }) } });
      await s.settled();
      assert.equal(readyPid(s, 'fake'), pid);
      await until('the new settings reached the server', async () => {
        const state = await target.connection!.request<Notified>('fake/state', null);
        return state.notifications.some(
          (x) =>
            x.method === 'workspace/didChangeConfiguration' &&
            JSON.stringify(x.params).includes('"level":2'),
        );
      });

      // extensionToLanguage: routing only.
      store.set({
        fake: {
          config: fake({
            settings: { fake: { level: 2 } },
            extensionToLanguage: { '.txt': 'plaintext', '.md': 'markdown' },
          }),
        },
      });
      await s.settled();
      assert.equal(readyPid(s, 'fake'), pid);
      assert.deepEqual(s.kind('LanguageServer').get('fake')?.status.extensions, ['.md', '.txt']);
      assert.equal(s.lspTargets()[0]?.connection?.documents.languageOf('/x/a.md'), 'markdown');
      assert.ok(registry.includes('languageserver/fake'), 'the Ready set change was told');
      assert.deepEqual(spawned, [pid], 'no restart for settings or routing');

      // Any other edit: a new process, the old one gone.
      store.set({ fake: { config: fake({ env: { FAKE_EDIT: '1' } }) } });
      const pid2 = await until('fake restarted', () => {
        const p = readyPid(s, 'fake');
        return p !== undefined && p !== pid ? p : undefined;
      });
      await until('the old process gone', () => !groupAlive(pid));
      assert.equal(s.kind('LanguageServer').get('fake')?.status.restarts, 1);
      assert.equal(s.kind('LanguageServer').get('fake')?.spec.env?.FAKE_EDIT, '<redacted>');

      // Removed: the process ends.
      store.set({});
      await until('removed', () => s.kind('LanguageServer').get('fake') === undefined);
      await until('its process gone', () => !groupAlive(pid2));
      assert.equal(s.kind('LanguageServer').why('fake').reason, 'Removed');
    },
  );

  it(
    'a project server waits for approval, spawning nothing; an MCP approval of its name does not admit it',
    T,
    async () => {
      const store = new LspTestStore(ws);
      const config = fake();
      store.set({ fake: { config, scope: 'project' } });
      const s = await session(store);
      const prompted: string[] = [];
      s.on('pendingApproval', (server) => {
        if (isLanguageServer(server)) prompted.push(server.name);
      });
      await s.settled();
      assert.equal(
        condition(s.kind('LanguageServer').get('fake'), 'Admitted'),
        'False/PendingApproval',
      );
      assert.equal(s.kind('LanguageServer').why('fake').reason, 'PendingApproval');
      assert.match(
        s.kind('LanguageServer').why('fake').action,
        /mcpctl approve languageserver\/fake/,
      );
      assert.equal(s.lspTargets()[0]?.unavailable?.reason, 'PendingApproval');
      assert.ok(
        s
          .eventList()
          .some(
            (e) => e.reason === 'PendingApproval' && e.involvedObject === 'languageserver/fake',
          ),
      );

      // An MCP server's approval of the same name (even of the same text) admits nothing.
      await approvals.approve(ws, 'fake', approvalHashOf(config));
      await s
        .kind('McpServer')
        .approve('fake', approvalHashOf(config as never), { sessionOnly: true })
        .catch(() => undefined);
      s.approvalsChanged();
      await s.settled();
      assert.equal(s.kind('LanguageServer').why('fake').reason, 'PendingApproval');
      assert.deepEqual(spawned, [], 'nothing spawned before approval');
      assert.deepEqual(lspPool.stats(), []);

      // Its own approval, of the hash shown.
      const subject = s.kind('LanguageServer').subject('fake');
      assert.equal(subject.hash, lspApprovalHashOf(config));
      await s.kind('LanguageServer').approve('fake', subject.hash);
      const pid = await until('fake ready after approval', () => readyPid(s, 'fake'));
      assert.deepEqual(spawned, [pid]);
      assert.equal(condition(s.kind('LanguageServer').get('fake'), 'Admitted'), 'True/Approved');
    },
  );

  it(
    'two sessions on one workspace share one process; another workspace gets its own',
    T,
    async () => {
      const config = fake();
      const a = new LspTestStore(ws);
      a.set({ fake: { config } });
      const b = new LspTestStore(ws);
      b.set({ fake: { config } });
      const s1 = await session(a);
      const s2 = await session(b);
      const p1 = await until('s1 ready', () => readyPid(s1, 'fake'));
      const p2 = await until('s2 ready', () => readyPid(s2, 'fake'));
      assert.equal(p1, p2);
      assert.equal(lspPool.stats().length, 1);
      assert.equal(lspPool.stats()[0]?.kind, 'languageServer');
      assert.deepEqual(lspPool.stats()[0]?.refs, [s1.id, s2.id].sort());

      const other = path.join(dir.path, `other${n}`);
      mkdirSync(other);
      const c = new LspTestStore(realpathSync(other));
      c.set({ fake: { config } });
      const s3 = await session(c, other);
      const p3 = await until('s3 ready', () => readyPid(s3, 'fake'));
      assert.notEqual(p3, p1);
      assert.equal(spawned.length, 2);

      // The first session closing leaves the server to the second.
      await s1.close();
      assert.ok(groupAlive(p1));
      assert.equal(readyPid(s2, 'fake'), p1);
    },
  );

  it('SIGKILL restarts it; past maxRestarts it gives up, and a reload retries', T, async () => {
    const store = new LspTestStore(ws);
    store.set({ fake: { config: fake({ maxRestarts: 1 }) } });
    const s = await session(store);
    const p1 = await until('ready', () => readyPid(s, 'fake'));
    process.kill(p1, 'SIGKILL');
    const p2 = await until('restarted', () => {
      const p = readyPid(s, 'fake');
      return p !== undefined && p !== p1 ? p : undefined;
    });
    assert.equal(s.kind('LanguageServer').get('fake')?.status.restarts, 1);

    process.kill(p2, 'SIGKILL');
    await until('gave up', () => {
      const ready = s
        .kind('LanguageServer')
        .get('fake')
        ?.status.conditions.find((c) => c.type === 'Ready');
      return ready?.reason === 'CrashLoopBackOff' && /gave up/.test(ready.message ?? '');
    });
    await s.settled();
    assert.equal(readyPid(s, 'fake'), undefined);
    const answer = s.kind('LanguageServer').why('fake');
    assert.equal(answer.reason, 'CrashLoopBackOff');
    assert.match(answer.action, /mcpctl reload/);
    assert.equal(spawned.length, 2, 'no restart after giving up');
    assert.ok(
      s
        .eventList()
        .some((e) => e.reason === 'GaveUp' && e.involvedObject === 'languageserver/fake'),
    );

    await s.reload();
    await until('retried after reload', () => readyPid(s, 'fake'));
    assert.equal(spawned.length, 3);
  });

  it(
    'SIGKILL: the new process gets the documents the lost one had open; a vanished file is skipped',
    T,
    async () => {
      const store = new LspTestStore(ws);
      store.set({ fake: { config: fake() } });
      const s = await session(store);
      const p1 = await until('ready', () => readyPid(s, 'fake'));
      const files = ['a.txt', 'b.txt', 'gone.txt'].map((f) => path.join(ws, f));
      for (const f of files) writeFileSync(f, `text of ${path.basename(f)}\n`);
      const first = s.lspTargets()[0].connection!;
      for (const f of files) await first.documents.sync(f);
      rmSync(files[2]);

      process.kill(p1, 'SIGKILL');
      await until('restarted', () => {
        const p = readyPid(s, 'fake');
        return p !== undefined && p !== p1 ? p : undefined;
      });
      const second = s.lspTargets()[0].connection!;
      assert.notEqual(second, first);
      // Re-opened before the restart counts as Ready: the server has them at once.
      assert.deepEqual(second.documents.openPaths(), files.slice(0, 2));
      const state = await second.request<Notified>('fake/state', null);
      const opened = state.notifications
        .filter((x) => x.method === 'textDocument/didOpen')
        .map((x) => (x.params as { textDocument: { uri: string; text: string } }).textDocument);
      assert.deepEqual(opened.map((d) => [path.basename(d.uri), d.text]).sort(), [
        ['a.txt', 'text of a.txt\n'],
        ['b.txt', 'text of b.txt\n'],
      ]);
    },
  );

  it('restartOnCrash false: a crash is not restarted', T, async () => {
    const store = new LspTestStore(ws);
    store.set({ fake: { config: fake({ restartOnCrash: false }) } });
    const s = await session(store);
    const p1 = await until('ready', () => readyPid(s, 'fake'));
    process.kill(p1, 'SIGKILL');
    await until(
      'gave up',
      () => s.kind('LanguageServer').why('fake').reason === 'CrashLoopBackOff',
    );
    await s.settled();
    assert.deepEqual(spawned, [p1]);
  });

  it(
    'the --allowed-lsp-server-names ceiling narrows: NotAllowed, and the process ends',
    T,
    async () => {
      const store = new LspTestStore(ws);
      store.set({ fake: { config: fake() } });
      const s = await session(store);
      const pid = await until('ready', () => readyPid(s, 'fake'));
      store.set({ fake: { config: fake() } }, []);
      await until(
        'not allowed',
        () => s.kind('LanguageServer').why('fake').reason === 'NotAllowed',
      );
      await until('its process gone', () => !groupAlive(pid));
      assert.match(s.kind('LanguageServer').why('fake').action, /--allowed-lsp-server-names/);
      assert.equal(s.lspTargets()[0]?.connection, undefined);
    },
  );

  it('a workspace folder outside the workspace starts nothing and says why', T, async () => {
    const store = new LspTestStore(ws);
    store.set({ fake: { config: fake({ workspaceFolder: '../elsewhere' }) } });
    const s = await session(store);
    await s.settled();
    assert.equal(condition(s.kind('LanguageServer').get('fake'), 'Ready'), 'False/InvalidConfig');
    const answer = s.kind('LanguageServer').why('fake');
    assert.equal(answer.reason, 'InvalidConfig');
    assert.match(answer.message, /workspaceFolder: the folder it names is outside the workspace/);
    assert.deepEqual(spawned, []);
  });
});
