import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  CLIENT_INFO_MAX,
  DaemonStoppingError,
  SessionTable,
  WorkspaceNotFoundError,
  type TableSession,
} from './daemon-sessions.js';
import { tempDir } from '../testing/temp-dir.js';

const temp = tempDir('mcpctl-sessions-');
const root = temp.path;
after(temp.remove);
const ws = (name: string) => {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
};

class FakeSession implements TableSession {
  closed = 0;
  constructor(
    readonly id: string,
    readonly workspace: string,
  ) {}
  close(): Promise<void> {
    this.closed += 1;
    return Promise.resolve();
  }
}

function table(opts: { fail?: boolean; delayMs?: number } = {}) {
  const created: FakeSession[] = [];
  const t = new SessionTable<FakeSession>({
    create: async (spec, id) => {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (opts.fail) throw new Error('boom');
      const s = new FakeSession(id, spec.workspace);
      created.push(s);
      return s;
    },
  });
  return { t, created };
}

describe('SessionTable', () => {
  it('same key → same session, counted per opener; the last release closes it', async () => {
    const { t, created } = table();
    const a = await t.open({ workspace: ws('a') });
    const b = await t.open({ workspace: ws('a') });
    assert.equal(a.session, b.session);
    assert.equal(created.length, 1);
    assert.equal(t.list()[0].openers, 2);
    a.release();
    a.release(); // idempotent
    assert.equal(created[0].closed, 0);
    b.release();
    await new Promise((r) => setImmediate(r));
    assert.equal(created[0].closed, 1);
    assert.deepEqual(t.list(), []);
  });

  it('lists the agents holding a session, each while its handle is held', async () => {
    const { t } = table();
    const cli = await t.open({ workspace: ws('g') });
    const url = await t.open(
      { workspace: ws('g') },
      { agent: { transport: 'http', workspaceFrom: 'url', name: 'http 1' } },
    );
    const alike = { transport: 'http', workspaceFrom: 'daemon', name: 'http 2' } as const;
    const d1 = await t.open({ workspace: ws('g') }, { agent: alike });
    const d2 = await t.open({ workspace: ws('g') }, { agent: alike });
    const from = () => t.list()[0]?.agents.map((a) => a.workspaceFrom);
    assert.deepEqual(
      from(),
      ['url', 'daemon', 'daemon'],
      'a CLI hold is no agent; alike agents count twice',
    );
    d1.release();
    d1.release(); // idempotent: the other alike agent stays
    assert.deepEqual(from(), ['url', 'daemon']);
    url.release();
    d2.release();
    assert.deepEqual(from(), []);
    cli.release();
  });

  it("lists an agent's clientInfo once told, cut to length; a CLI hold and a released one ignore it", async () => {
    const { t } = table();
    const agent = { transport: 'serve', workspaceFrom: 'serve', name: 'serve pid 7' } as const;
    const a = await t.open({ workspace: ws('ci') }, { agent });
    const cli = await t.open({ workspace: ws('ci') });
    const infos = () => t.list()[0]?.agents.map((x) => x.clientInfo);
    assert.deepEqual(infos(), [undefined], 'nothing before its initialize');
    a.identify({ name: `evil\u001b[2J${'x'.repeat(500)}`, version: 42 });
    const got = infos()?.[0];
    assert.equal(got?.name.length, CLIENT_INFO_MAX, 'cut to the bound');
    assert.ok(got?.name.startsWith('evil\u001b[2J'), 'kept as sent: the printers escape it');
    assert.equal(got?.version, '', 'a field that is not text is empty');
    cli.identify({ name: 'not an agent' });
    assert.equal(t.list()[0]?.agents.length, 1, 'a CLI hold lists no agent');
    a.release();
    a.identify({ name: 'late' });
    assert.deepEqual(infos(), []);
    cli.release();
  });

  it('the environment is part of the key: one folder, two environments, two sessions', async () => {
    const { t, created } = table();
    const env = (v: string) => ({ vars: { TOKEN: v }, label: `serve ${v}` });
    const a = await t.open({ workspace: ws('env'), env: env('a') });
    const a2 = await t.open({ workspace: ws('env'), env: env('a') });
    const b = await t.open({ workspace: ws('env'), env: env('b') });
    const d = await t.open({ workspace: ws('env') });
    assert.equal(a.session, a2.session, 'equal environments share one');
    assert.notEqual(a.session, b.session, "a ${TOKEN} never expands to another agent's value");
    assert.notEqual(a.session, d.session, "the daemon's own environment is a third");
    assert.equal(created.length, 3);
    for (const h of [a, a2, b, d]) h.release();
  });

  it("two agents that differ only in one terminal's variables share one session", async () => {
    const { t, created } = table();
    const vars = { TOKEN: 'a', PATH: '/bin' };
    const a = await t.open({
      workspace: ws('noise'),
      env: { vars: { ...vars, SHLVL: '2', TERM_SESSION_ID: 'w0', CLAUDECODE: '1' }, label: 'a' },
    });
    const b = await t.open({
      workspace: ws('noise'),
      env: { vars: { ...vars, SHLVL: '4', WINDOWID: '9', GEMINI_CLI: '1', _: 'x' }, label: 'b' },
    });
    assert.equal(a.session, b.session);
    assert.equal(created.length, 1);
    for (const h of [a, b]) h.release();
  });

  it('the folder of several sessions: the one an agent holds, then the pinned, then the oldest', async () => {
    const { t } = table();
    const pinned = await t.open({ workspace: ws('pick') }, { pinned: true, id: 'default' });
    const cli = await t.open({ workspace: ws('pick'), env: { vars: { A: '1' }, label: 'cli' } });
    assert.equal(t.findByWorkspace(ws('pick')), pinned.session, 'no agent: the pinned one');
    const agent = await t.open(
      { workspace: ws('pick'), env: { vars: { A: '2' }, label: 'serve' } },
      { agent: { transport: 'serve', workspaceFrom: 'serve', name: 'serve pid 1' } },
    );
    assert.equal(t.findByWorkspace(ws('pick')), agent.session, "the agent's, what it sees");
    agent.release();
    assert.equal(t.findByWorkspace(ws('pick')), pinned.session, 'the agent gone: pinned again');
    for (const h of [pinned, cli]) h.release();
  });

  it('workspace is compared by realpath; ceiling as a set; mcpConfig makes a different session', async () => {
    const { t, created } = table();
    const real = ws('real');
    const link = path.join(root, 'link');
    symlinkSync(real, link);
    const a = await t.open({ workspace: real, ceiling: ['x', 'y'] });
    const b = await t.open({ workspace: link, ceiling: ['y', 'x', 'x'] });
    assert.equal(a.session, b.session);
    const c = await t.open({
      workspace: real,
      ceiling: ['y', 'x'],
      mcpConfigPath: path.join(root, 'extra.json'),
    });
    assert.notEqual(c.session, a.session);
    assert.equal(created.length, 2);
    assert.equal(t.findByWorkspace(link), a.session, 'the oldest of a workspace wins');
    assert.equal(t.byId(c.session.id), c.session);
  });

  it('the LSP ceiling (a set) and --lsp-config select a session too; [] is not absent', async () => {
    const { t, created } = table();
    const dir = ws('lsp');
    const lspFile = path.join(root, 'lsp.json');
    const plain = await t.open({ workspace: dir });
    const ceiling = await t.open({ workspace: dir, lspCeiling: ['ts', 'py'] });
    const same = await t.open({ workspace: dir, lspCeiling: ['py', 'ts', 'ts'] });
    const none = await t.open({ workspace: dir, lspCeiling: [] });
    const file = await t.open({ workspace: dir, lspConfigPath: lspFile });
    assert.equal(same.session, ceiling.session);
    assert.equal(created.length, 4);
    assert.equal(
      new Set([plain, ceiling, none, file].map((h) => h.session)).size,
      4,
      'each differs from the others',
    );
    const specOf = (h: { session: FakeSession }) =>
      t.list().find((i) => i.session === h.session)?.spec;
    assert.deepEqual(specOf(none)?.lspCeiling, []);
    assert.equal(specOf(file)?.lspConfigPath, lspFile);
    assert.equal(specOf(plain)?.lspCeiling, undefined);
  });

  it('concurrent opens of a new key create one session', async () => {
    const { t, created } = table({ delayMs: 20 });
    const handles = await Promise.all(
      Array.from({ length: 5 }, () => t.open({ workspace: ws('c') })),
    );
    assert.equal(created.length, 1);
    assert.ok(handles.every((h) => h.session === handles[0].session));
    assert.equal(t.list()[0].openers, 5);
  });

  it('a pinned session stays after its openers go; closeAll closes it and refuses new opens', async () => {
    const { t, created } = table();
    const pinned = await t.open({ workspace: ws('p') }, { pinned: true, id: 'default' });
    assert.equal(pinned.session.id, 'default');
    const other = await t.open({ workspace: ws('p') });
    other.release();
    pinned.release();
    await new Promise((r) => setImmediate(r));
    assert.equal(created[0].closed, 0);
    assert.equal(t.findByWorkspace(ws('p')), pinned.session);
    await t.closeAll();
    assert.equal(created[0].closed, 1);
    await assert.rejects(t.open({ workspace: ws('p') }), DaemonStoppingError);
  });

  it('a failed creation is forgotten and every waiting opener gets the error', async () => {
    const { t } = table({ fail: true, delayMs: 5 });
    const results = await Promise.allSettled([
      t.open({ workspace: ws('f') }),
      t.open({ workspace: ws('f') }),
    ]);
    assert.ok(results.every((r) => r.status === 'rejected'));
    assert.deepEqual(t.list(), []);
  });

  it('an open during a close waits and gets a fresh session; events say opened and closed', async () => {
    const events: string[] = [];
    const { t, created } = table();
    t.on((e) => events.push(`${e.type}:${e.id}`));
    const a = await t.open({ workspace: ws('r') });
    a.release(); // closing starts now
    const b = await t.open({ workspace: ws('r') });
    assert.notEqual(b.session, a.session);
    assert.equal(created[0].closed, 1);
    assert.deepEqual(events, [
      `opened:${a.session.id}`,
      `closed:${a.session.id}`,
      `opened:${b.session.id}`,
    ]);
    assert.match(a.session.id, /^r-[0-9a-f]{6}$/);
  });

  it('a missing workspace is an error, not a session', async () => {
    const { t } = table();
    await assert.rejects(t.open({ workspace: path.join(root, 'nope') }), WorkspaceNotFoundError);
  });

  it('a regular file is not a workspace (issue 22)', async () => {
    const { t, created } = table();
    const file = path.join(root, 'a-file');
    writeFileSync(file, '');
    await assert.rejects(
      t.open({ workspace: file }),
      (e: Error) => e instanceof WorkspaceNotFoundError && /is not a directory/.test(e.message),
    );
    assert.equal(created.length, 0);
  });
});
