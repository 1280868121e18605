import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { ApprovalState, DesiredServer } from '../api/index.js';
import type { FileSnapshot } from './file-source.js';
import { createSessionStore, type SessionStoreOptions } from './session-store.js';
import { createSharedSources, type SharedSources } from './shared-sources.js';
import { tempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { Recorder, sleep, writeJson } from './testing/support.js';
import type { SessionStore, StoreChange } from './types.js';

const DEBOUNCE = 80;
const QUIET = DEBOUNCE + 300;

interface Env {
  root: string;
  home: string;
  ws: string;
  system: string;
  user: string;
  wsSettings: string;
  /** Gemini CLI's project settings (`<ws>/.gemini/` not made). */
  geminiSettings: string;
  project: string;
  projectLsp: string;
  trust: string;
  /** mcpctl's user server file (not made: `~/.mcpctl/` does not exist at first). */
  serverFile: string;
  sources: SharedSources;
  approvals: Map<string, ApprovalState>;
}

async function env(t: TestContext, debounceMs = DEBOUNCE): Promise<Env> {
  const { path: root, remove: cleanup } = tempDir('mcpctl-informers-');
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  await mkdir(path.join(home, '.qwen'), { recursive: true });
  await mkdir(path.join(ws, '.qwen'), { recursive: true });
  await mkdir(path.join(root, 'etc'));
  const sources = createSharedSources({ debounceMs });
  t.after(async () => {
    await sources.close();
    cleanup();
  });
  return {
    root,
    home,
    ws,
    system: path.join(root, 'etc', 'settings.json'),
    user: path.join(home, '.qwen', 'settings.json'),
    wsSettings: path.join(ws, '.qwen', 'settings.json'),
    geminiSettings: path.join(ws, '.gemini', 'settings.json'),
    project: path.join(ws, '.mcp.json'),
    projectLsp: path.join(ws, '.lsp.json'),
    trust: path.join(home, '.qwen', 'trustedFolders.json'),
    serverFile: path.join(home, '.mcpctl', 'mcp.json'),
    sources,
    approvals: new Map(),
  };
}

async function openStore(
  t: TestContext,
  e: Env,
  extra: Partial<SessionStoreOptions> = {},
): Promise<{ store: SessionStore; changes: Recorder<StoreChange> }> {
  const store = createSessionStore({
    workspace: e.ws,
    home: e.home,
    systemSettingsPath: e.system,
    sharedSources: e.sources,
    approvals: (s: DesiredServer) => e.approvals.get(s.name) ?? 'pending',
    ...extra,
  });
  const changes = new Recorder<StoreChange>();
  store.onChange(changes.push);
  t.after(() => store.close());
  await store.start();
  return { store, changes };
}

/** Reads of one settings file, seen through the shared sources (closed with the test). */
function settingsReads(t: TestContext, e: Env, file: string): Recorder<boolean> {
  const lease = e.sources.settings(file);
  const reads = new Recorder<boolean>();
  lease.source.onRead((_s: FileSnapshot<unknown>, changed) => reads.push(changed));
  t.after(() => lease.release());
  return reads;
}

const stdio = (arg: string) => ({ command: 'node', args: [arg] });
const lsp = (command: string, ext = '.ts') => ({ command, extensionToLanguage: { [ext]: 'x' } });
const names = (store: SessionStore) => Object.keys(store.current().kinds.McpServer.servers).sort();

test(
  'an mcpServers-only edit emits one change naming added and changed servers',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.user, { mcpServers: { a: stdio('a'), b: stdio('b') } });
    const { store, changes } = await openStore(t, e);
    assert.deepEqual(names(store), ['a', 'b']);
    await writeJson(e.user, { mcpServers: { a: stdio('a'), b: stdio('b2'), c: stdio('c') } });
    const change = await changes.nth(1, 'the edit');
    assert.deepEqual(change, {
      names: { McpServer: ['b', 'c'], LanguageServer: [] },
      configValidityChanged: false,
    });
    assert.equal(store.current().kinds.McpServer.servers.b?.config.args?.[0], 'b2');
    await writeJson(e.user, { mcpServers: { a: stdio('a'), c: stdio('c') } });
    assert.deepEqual((await changes.nth(2, 'the removal')).names.McpServer, ['b']);
    await sleep(QUIET);
    assert.equal(changes.count, 2);
  },
);

test(
  'an mcp.excluded-only edit emits one change naming the excluded server',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.user, {
      mcpServers: { a: stdio('a'), b: stdio('b') },
      mcp: { excluded: [] },
    });
    const { store, changes } = await openStore(t, e);
    await writeJson(e.user, {
      mcpServers: { a: stdio('a'), b: stdio('b') },
      mcp: { excluded: ['a'] },
    });
    assert.deepEqual((await changes.nth(1, 'the exclusion')).names.McpServer, ['a']);
    assert.deepEqual(store.current().kinds.McpServer.gating.excluded, ['a']);
    await sleep(QUIET);
    assert.equal(changes.count, 1);
  },
);

test('theme and restart-only edits emit no change at all', { timeout: 10000 }, async (t) => {
  const e = await env(t);
  const base = {
    mcpServers: { a: stdio('a') },
    ui: { theme: 'dark' },
    mcp: { serverCommand: 'x' },
  };
  await writeJson(e.user, base);
  const { changes } = await openStore(t, e);
  // Subscribed after start: the reads counted are those of the edits below.
  const reads = settingsReads(t, e, e.user);
  await writeJson(e.user, { ...base, ui: { theme: 'light' } });
  await reads.nth(1, 'the theme read');
  await writeJson(e.user, { ...base, ui: { theme: 'light' }, mcp: { serverCommand: 'y' } });
  assert.equal(await reads.nth(2, 'the restart-only read'), false);
  await writeJson(e.user, { ...base, ui: { theme: 'light' }, skills: { enabled: ['z'] } });
  await reads.nth(3, 'the skills read');
  assert.equal(changes.count, 0);
});

test(
  '.mcp.json in the Claude shape is read, gated, and watched on its own',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.project, {
      mcpServers: {
        remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
        events: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
        local: { type: 'stdio', command: 'node', args: ['s.js'] },
      },
    });
    const { store, changes } = await openStore(t, e);
    const s = store.current().kinds.McpServer.servers;
    assert.equal(s.remote?.scope, 'project');
    assert.equal(s.remote?.source, e.project);
    assert.deepEqual(s.remote?.config, { httpUrl: 'http://127.0.0.1:9/mcp' });
    assert.deepEqual(s.events?.config, { url: 'http://127.0.0.1:9/sse' });
    assert.deepEqual(s.local?.config, { command: 'node', args: ['s.js'] });
    assert.deepEqual(store.current().kinds.McpServer.gating.pending, ['events', 'local', 'remote']);
    await writeJson(e.project, {
      mcpServers: { local: { type: 'stdio', command: 'node', args: ['t.js'] } },
    });
    assert.deepEqual((await changes.nth(1, 'the .mcp.json edit')).names.McpServer, [
      'events',
      'local',
      'remote',
    ]);
  },
);

test(
  'invalid JSON: ConfigValid flips with line, last good stays; the fix recovers',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.wsSettings, { mcpServers: { w: stdio('w') } });
    const { store, changes } = await openStore(t, e);
    await writeFile(
      e.wsSettings,
      '{\n  "mcpServers": {\n    "w": { "command": "node" },\n    "x": { "command": }\n  }\n}\n',
    );
    const invalid = await changes.nth(1, 'the broken save');
    assert.deepEqual(invalid, {
      names: { McpServer: [], LanguageServer: [] },
      configValidityChanged: true,
    });
    const status = store.current().sources.find((s) => s.scope === 'workspace');
    assert.equal(status?.errors.length, 1);
    assert.equal(status?.errors[0]?.line, 4);
    assert.equal(status?.errors[0]?.file, e.wsSettings);
    assert.deepEqual(names(store), ['w'], 'the last good content stays in force');
    assert.deepEqual(store.current().kinds.McpServer.servers.w?.config, stdio('w'));

    await writeJson(e.wsSettings, { mcpServers: { w: stdio('w'), x: stdio('x') } });
    const fixed = await changes.nth(2, 'the fix');
    assert.deepEqual(fixed, {
      names: { McpServer: ['x'], LanguageServer: [] },
      configValidityChanged: true,
    });
    assert.ok(store.current().sources.every((s) => s.errors.length === 0));
  },
);

test(
  'an untrusted folder ignores workspace settings; trusting it re-emits every name',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.user, {
      security: { folderTrust: { enabled: true } },
      mcpServers: { u: stdio('u') },
      mcp: { excluded: ['u'] },
    });
    await writeJson(e.wsSettings, { mcpServers: { w: stdio('w') }, mcp: { excluded: ['p'] } });
    await writeJson(e.project, { mcpServers: { p: stdio('p') } });
    const { store, changes } = await openStore(t, e);
    assert.equal(store.current().trusted, false);
    assert.deepEqual(names(store), ['p', 'u']);
    assert.deepEqual(
      store.current().kinds.McpServer.gating.excluded,
      ['u'],
      'workspace mcp section ignored',
    );

    await writeJson(e.trust, { [e.ws]: 'TRUST_FOLDER' });
    const trusted = await changes.nth(1, 'the trust change');
    assert.deepEqual(trusted.names.McpServer, ['p', 'u', 'w']);
    assert.equal(store.current().trusted, true);
    assert.deepEqual(
      store.current().kinds.McpServer.gating.excluded,
      ['u', 'p'],
      "workspace mcp section now counts, joined to the user's (it cannot take 'u' back)",
    );

    // A more specific DO_NOT_TRUST wins over trusting the parent.
    await writeJson(e.trust, {
      [e.ws]: 'DO_NOT_TRUST',
      [path.join(e.ws, 'sub')]: 'TRUST_PARENT',
      [e.root]: 'TRUST_FOLDER',
    });
    const distrusted = await changes.nth(2, 'the distrust');
    assert.deepEqual(distrusted.names.McpServer, ['p', 'u', 'w']);
    assert.equal(store.current().trusted, false);
  },
);

test(
  'turning folder trust off in user settings trusts the workspace',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.user, { security: { folderTrust: { enabled: true } } });
    await writeJson(e.wsSettings, { mcpServers: { w: stdio('w') } });
    const { store, changes } = await openStore(t, e);
    assert.equal(store.current().trusted, false);
    assert.deepEqual(names(store), []);
    await writeJson(e.user, { security: { folderTrust: { enabled: false } } });
    assert.deepEqual((await changes.nth(1, 'trust off')).names.McpServer, ['w']);
    assert.equal(store.current().trusted, true);
  },
);

test(
  'resync re-reads every file, emits once, and returns old ∪ new names',
  { timeout: 10000 },
  async (t) => {
    // A long debounce: only resync can pick the edits up within the test.
    const e = await env(t, 5000);
    await writeJson(e.user, { mcpServers: { a: stdio('a'), b: stdio('b') } });
    const { store, changes } = await openStore(t, e);
    await writeJson(e.user, { mcpServers: { a: stdio('a') } });
    await writeJson(e.project, { mcpServers: { p: stdio('p') } });
    await writeJson(e.projectLsp, { ts: lsp('ts') });
    const all = await store.resync();
    assert.deepEqual(all, { McpServer: ['a', 'b', 'p'], LanguageServer: ['ts'] });
    assert.equal(changes.count, 1);
    assert.deepEqual(changes.events[0], {
      names: { McpServer: ['b', 'p'], LanguageServer: ['ts'] },
      configValidityChanged: false,
    });
    assert.deepEqual(names(store), ['a', 'p']);
    // Nothing changed on disk: still every known name, and no event.
    assert.deepEqual(await store.resync(), { McpServer: ['a', 'p'], LanguageServer: ['ts'] });
    assert.equal(changes.count, 1);
  },
);

test('peek shows the files on disk now and commits nothing', { timeout: 10000 }, async (t) => {
  const e = await env(t, 5000);
  await writeJson(e.user, { mcpServers: { a: stdio('a') } });
  const { store, changes } = await openStore(t, e);
  await writeJson(e.user, { mcpServers: { b: stdio('b') }, mcp: { allowed: [] } });
  const peeked = await store.peek();
  assert.deepEqual(Object.keys(peeked.kinds.McpServer.servers), ['b']);
  assert.deepEqual(peeked.kinds.McpServer.gating.allowed, []);
  assert.deepEqual(names(store), ['a']);
  assert.equal(store.current().kinds.McpServer.gating.allowed, undefined);
  assert.equal(changes.count, 0);
});

test('refreshGating emits the names whose approval moved', { timeout: 10000 }, async (t) => {
  const e = await env(t);
  await writeJson(e.project, { mcpServers: { p: stdio('p'), q: stdio('q') } });
  await writeJson(e.user, { mcpServers: { u: stdio('u') } });
  const { store, changes } = await openStore(t, e);
  assert.deepEqual(store.current().kinds.McpServer.gating.pending, ['p', 'q']);
  e.approvals.set('p', 'approved');
  store.refreshGating();
  assert.deepEqual(changes.events, [
    { names: { McpServer: ['p'], LanguageServer: [] }, configValidityChanged: false },
  ]);
  assert.deepEqual(store.current().kinds.McpServer.gating.pending, ['q']);
  e.approvals.set('q', 'rejected');
  store.refreshGating();
  assert.equal(changes.count, 1, 'rejected stays in pending: no move');
});

test(
  'ceiling, --mcp-config, session servers and system precedence',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    const cliFile = path.join(e.root, 'cli.json');
    await writeJson(cliFile, { mcpServers: { a: stdio('from-cli') } });
    await writeJson(e.system, {
      mcpServers: { a: stdio('from-system'), s: stdio('s') },
      mcp: { excluded: ['s'] },
    });
    await writeJson(e.user, {
      mcpServers: { a: stdio('from-user') },
      mcp: { allowed: ['a', 'b', 'c'], excluded: [] },
    });
    const { store, changes } = await openStore(t, e, {
      ceiling: ['a', 'b'],
      mcpConfigPath: cliFile,
      sessionServers: { sess: stdio('sess') },
    });
    const cur = store.current();
    assert.equal(cur.kinds.McpServer.servers.a?.scope, 'cli');
    assert.deepEqual(cur.kinds.McpServer.servers.a?.config.args, ['from-cli']);
    assert.equal(cur.kinds.McpServer.servers.sess?.scope, 'session');
    assert.deepEqual(
      cur.kinds.McpServer.gating.allowed,
      ['a', 'b'],
      'settings cannot widen the ceiling',
    );
    assert.deepEqual(cur.kinds.McpServer.gating.excluded, ['s'], 'system replaces the user list');
    assert.deepEqual(
      cur.sources.map((s) => s.scope),
      ['system', 'user', 'user', 'workspace', 'workspace', 'project', 'cli', 'project', 'trust'],
    );
    await writeJson(cliFile, { mcpServers: { a: stdio('from-cli-2') } });
    assert.deepEqual((await changes.nth(1, 'the --mcp-config edit')).names.McpServer, ['a']);
  },
);

test(
  'sessions share sources through one SharedSources; the last release closes them',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    const ws2 = path.join(e.root, 'ws2');
    await mkdir(ws2);
    await writeJson(e.user, { mcpServers: { u: stdio('u') } });
    const one = await openStore(t, e);
    const two = await openStore(t, e, { workspace: ws2 });
    // system, user, the server file and trust are shared; each workspace has its settings,
    // its Gemini settings, .mcp.json, .lsp.json.
    assert.equal(e.sources.size(), 4 + 4 + 4);
    await writeJson(e.user, { mcpServers: { u: stdio('u2') } });
    assert.deepEqual((await one.changes.nth(1, 'session one')).names.McpServer, ['u']);
    assert.deepEqual((await two.changes.nth(1, 'session two')).names.McpServer, ['u']);
    await one.store.close();
    assert.equal(e.sources.size(), 4 + 4);
    await writeJson(e.user, { mcpServers: { u: stdio('u3') } });
    assert.deepEqual((await two.changes.nth(2, 'session two after one closed')).names.McpServer, [
      'u',
    ]);
    await two.store.close();
    assert.equal(e.sources.size(), 0);
    assert.equal(one.changes.count, 1);
  },
);

test(
  'a workspace that is the home has no separate workspace layer',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.user, { mcpServers: { u: stdio('u') } });
    const { store } = await openStore(t, e, { workspace: e.home });
    assert.equal(
      store.current().kinds.McpServer.servers.u?.scope,
      'user',
      'not shadowed as a workspace server',
    );
    assert.deepEqual(
      store.current().sources.map((s) => s.scope),
      ['system', 'user', 'user', 'project', 'project', 'trust'],
    );
  },
);

test('a store given no SharedSources makes and closes its own', { timeout: 10000 }, async (t) => {
  const { path: dir, remove: cleanup } = tempDir('mcpctl-informers-');
  t.after(cleanup);
  const home = path.join(dir, 'home');
  const ws = path.join(dir, 'ws');
  await mkdir(path.join(home, '.qwen'), { recursive: true });
  await mkdir(ws);
  await writeJson(path.join(ws, '.mcp.json'), { mcpServers: { p: stdio('p') } });
  const store = createSessionStore({
    workspace: ws,
    home,
    systemSettingsPath: path.join(dir, 'none', 'settings.json'),
    approvals: () => 'approved',
    debounceMs: DEBOUNCE,
  });
  const changes = new Recorder<StoreChange>();
  store.onChange(changes.push);
  try {
    await store.start();
    assert.deepEqual(store.current().kinds.McpServer.gating.pending, []);
    await writeJson(path.join(ws, '.mcp.json'), { mcpServers: {} });
    assert.deepEqual((await changes.nth(1, 'removal')).names.McpServer, ['p']);
  } finally {
    await store.close();
  }
});

test(
  '.lsp.json: read as project language servers, gated; an edit of it names only language servers',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.user, { mcpServers: { ts: stdio('an-mcp-server') } });
    await writeJson(e.projectLsp, { ts: lsp('typescript-language-server') });
    const { store, changes } = await openStore(t, e);
    const cur = store.current();
    assert.deepEqual(cur.kinds.LanguageServer.servers.ts, {
      kind: 'LanguageServer',
      name: 'ts',
      config: lsp('typescript-language-server'),
      scope: 'project',
      source: e.projectLsp,
    });
    assert.equal(cur.kinds.LanguageServer.gating.allowed, undefined, 'no ceiling: no allowlist');
    assert.deepEqual(
      cur.kinds.LanguageServer.gating,
      { excluded: [], pending: ['ts'] },
      'pending by default',
    );
    assert.ok(cur.sources.some((s) => s.file === e.projectLsp && s.scope === 'project'));

    await writeJson(e.projectLsp, {
      ts: lsp('typescript-language-server'),
      sh: lsp('bash-language-server', '.sh'),
    });
    assert.deepEqual(await changes.nth(1, 'the .lsp.json edit'), {
      names: { McpServer: [], LanguageServer: ['sh'] },
      configValidityChanged: false,
    });
    // And the reverse: an MCP edit names no language server, even one of the same name.
    await writeJson(e.user, { mcpServers: { ts: stdio('another') } });
    assert.deepEqual(await changes.nth(2, 'the settings edit'), {
      names: { McpServer: ['ts'], LanguageServer: [] },
      configValidityChanged: false,
    });
    await sleep(QUIET);
    assert.equal(changes.count, 2);
  },
);

test(
  '.lsp.json: a broken edit keeps the last good and reports file and line; deletion means none',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.projectLsp, { ts: lsp('tsls') });
    const { store, changes } = await openStore(t, e);
    await writeFile(e.projectLsp, '{\n  "ts": {\n    "command": \n  }\n}\n');
    assert.deepEqual(await changes.nth(1, 'the broken save'), {
      names: { McpServer: [], LanguageServer: [] },
      configValidityChanged: true,
    });
    const status = store.current().sources.find((s) => s.file === e.projectLsp);
    assert.equal(status?.errors.length, 1);
    assert.equal(status?.errors[0]?.line, 4);
    assert.equal(status?.errors[0]?.kind, 'parse');
    assert.deepEqual(
      store.current().kinds.LanguageServer.servers.ts?.config,
      lsp('tsls'),
      'last good stays',
    );

    // Parses, but does not validate: named by server and field, the last good still in force.
    await writeJson(e.projectLsp, { ts: { command: 'tsls', extensionToLanguage: 'ts' } });
    await changes.nth(2, 'the invalid save');
    const invalid = store.current().sources.find((s) => s.file === e.projectLsp);
    assert.match(invalid?.errors[0]?.message ?? '', /^ts\.extensionToLanguage: expected an object/);
    assert.equal(invalid?.errors[0]?.line, 4, 'the line of the field');
    assert.deepEqual(store.current().kinds.LanguageServer.servers.ts?.config, lsp('tsls'));

    await rm(e.projectLsp);
    assert.deepEqual(await changes.nth(3, 'the deletion'), {
      names: { McpServer: [], LanguageServer: ['ts'] },
      configValidityChanged: true,
    });
    assert.deepEqual(Object.keys(store.current().kinds.LanguageServer.servers), []);
    assert.deepEqual(store.current().kinds.LanguageServer.gating.pending, []);
  },
);

test(
  '--lsp-config replaces .lsp.json per name; the LSP ceiling is the allowlist',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    const cliFile = path.join(e.root, 'lsp.json');
    await writeJson(cliFile, { ts: lsp('mine') });
    await writeJson(e.projectLsp, { ts: lsp('theirs'), py: lsp('pyright', '.py') });
    const { store, changes } = await openStore(t, e, {
      lspConfigPath: cliFile,
      lspCeiling: ['ts'],
      ceiling: ['mcp-only'],
    });
    const cur = store.current();
    assert.equal(cur.kinds.LanguageServer.servers.ts?.scope, 'cli');
    assert.equal(cur.kinds.LanguageServer.servers.ts?.source, cliFile);
    assert.equal(cur.kinds.LanguageServer.servers.ts?.config.command, 'mine');
    assert.equal(cur.kinds.LanguageServer.servers.py?.scope, 'project');
    assert.deepEqual(cur.kinds.LanguageServer.gating, {
      excluded: [],
      allowed: ['ts'],
      pending: ['py'],
    });
    assert.deepEqual(cur.kinds.McpServer.gating.allowed, ['mcp-only']);
    assert.ok(cur.sources.some((s) => s.file === cliFile && s.scope === 'cli'));
    await writeJson(cliFile, {});
    assert.deepEqual(await changes.nth(1, 'the --lsp-config edit'), {
      names: { McpServer: [], LanguageServer: ['ts'] },
      configValidityChanged: false,
    });
    assert.equal(store.current().kinds.LanguageServer.servers.ts?.config.command, 'theirs');
  },
);

test('an empty LSP ceiling admits no language server', { timeout: 10000 }, async (t) => {
  const e = await env(t);
  await writeJson(e.projectLsp, { ts: lsp('tsls') });
  const { store } = await openStore(t, e, { lspCeiling: [] });
  assert.deepEqual(store.current().kinds.LanguageServer.gating.allowed, []);
});

test(
  'a hostile .lsp.json: 1001 servers are refused unvalidated, a control character in a name too',
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.projectLsp, { ok: lsp('ok') });
    const { store, changes } = await openStore(t, e);
    const flood: Record<string, unknown> = {};
    for (let i = 0; i < 1001; i++) flood[`s${i}`] = lsp(`server-${i}`);
    await writeJson(e.projectLsp, flood);
    await changes.nth(1, 'the flood');
    const refused = store.current().sources.find((s) => s.file === e.projectLsp);
    assert.equal(refused?.errors.length, 1);
    assert.match(
      refused?.errors[0]?.message ?? '',
      /^1001 language servers, more than the 1000 a project \.lsp\.json may hold/,
    );
    assert.deepEqual(
      Object.keys(store.current().kinds.LanguageServer.servers),
      ['ok'],
      'last good stays',
    );

    await writeJson(e.projectLsp, { ok: lsp('ok'), 'evil\u001b[2J': lsp('x') });
    await until('the control-character error', () =>
      (store.current().sources.find((s) => s.file === e.projectLsp)?.errors ?? []).some((x) =>
        x.message.includes('control character'),
      ),
    );
    const named = store.current().sources.find((s) => s.file === e.projectLsp);
    assert.doesNotMatch(named?.errors[0]?.message ?? '', /\u001b/);
    assert.deepEqual(Object.keys(store.current().kinds.LanguageServer.servers), ['ok']);
  },
);

test('--lsp-config, the user own file, is not capped', { timeout: 10000 }, async (t) => {
  const e = await env(t);
  const cliFile = path.join(e.root, 'lsp.json');
  const many: Record<string, unknown> = {};
  for (let i = 0; i < 1001; i++) many[`s${i}`] = lsp(`server-${i}`);
  await writeJson(cliFile, many);
  const { store } = await openStore(t, e, { lspConfigPath: cliFile });
  assert.equal(Object.keys(store.current().kinds.LanguageServer.servers).length, 1001);
  assert.deepEqual(
    store.current().kinds.LanguageServer.gating.pending,
    [],
    'cli scope is never gated',
  );
});

test('refreshGating moves language servers by their own lookup', { timeout: 10000 }, async (t) => {
  const e = await env(t);
  await writeJson(e.project, { mcpServers: { p: stdio('p') } });
  await writeJson(e.projectLsp, { p: lsp('p'), q: lsp('q') });
  const lspApproved = new Set<string>();
  const { store, changes } = await openStore(t, e, {
    lspApprovals: (s) => (lspApproved.has(s.name) ? 'approved' : 'pending'),
  });
  assert.deepEqual(store.current().kinds.LanguageServer.gating.pending, ['p', 'q']);
  lspApproved.add('p');
  store.refreshGating();
  assert.deepEqual(changes.events, [
    { names: { McpServer: [], LanguageServer: ['p'] }, configValidityChanged: false },
  ]);
  assert.deepEqual(
    store.current().kinds.McpServer.gating.pending,
    ['p'],
    'the MCP server p stays pending',
  );
  assert.deepEqual(store.current().kinds.LanguageServer.gating.pending, ['q']);
});

test(
  "mcpctl's server file: above Qwen's user settings, below the project, its workspace part above its top",
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.user, {
      mcpServers: { a: stdio('qwen'), b: stdio('qwen'), c: stdio('qwen') },
    });
    await writeJson(e.project, { mcpServers: { c: stdio('project') } });
    await mkdir(path.dirname(e.serverFile));
    await writeJson(e.serverFile, {
      mcpServers: { a: stdio('file'), b: stdio('file'), c: stdio('file') },
      projects: {
        [e.ws]: { mcpServers: { b: { type: 'stdio', command: 'node', args: ['local'] } } },
        [path.join(e.root, 'elsewhere')]: { mcpServers: { z: stdio('elsewhere') } },
      },
    });
    e.approvals.set('c', 'approved');
    const { store } = await openStore(t, e);
    const cur = store.current();
    assert.deepEqual(cur.kinds.McpServer.servers.a?.config.args, ['file']);
    assert.equal(cur.kinds.McpServer.servers.a?.scope, 'user');
    assert.equal(cur.kinds.McpServer.servers.a?.source, e.serverFile);
    // Written as a .mcp.json: `${VAR:-default}` expands there, not as in Qwen's settings.
    assert.equal(cur.kinds.McpServer.servers.a?.syntax, 'claude');
    assert.equal(cur.kinds.McpServer.servers.b?.syntax, 'claude');
    assert.equal(
      cur.kinds.McpServer.servers.c?.syntax,
      undefined,
      "the project's own: its scope's syntax",
    );
    assert.deepEqual(cur.kinds.McpServer.servers.b?.config.args, ['local']);
    assert.equal(
      cur.kinds.McpServer.servers.b?.scope,
      'user',
      "a workspace part is the user's: not gated",
    );
    assert.deepEqual(cur.kinds.McpServer.servers.c?.config.args, ['project']);
    assert.equal(
      cur.kinds.McpServer.servers.z,
      undefined,
      "another workspace's servers are not this one's",
    );
    assert.deepEqual(cur.kinds.McpServer.gating.pending, []);
    const listed = cur.sources.filter((s) => s.file === e.serverFile);
    assert.deepEqual(
      listed.map((s) => [s.scope, s.exists, s.inForce]),
      [['user', true, true]],
    );
  },
);

test(
  "mcpctl's server file: missing folder is empty, watched until it appears; errors keep the last good",
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    const { store, changes } = await openStore(t, e);
    const listed = () => store.current().sources.find((s) => s.file === e.serverFile);
    assert.equal(listed()?.exists, false);
    assert.deepEqual(listed()?.errors, []);
    await mkdir(path.dirname(e.serverFile));
    await writeJson(e.serverFile, { mcpServers: { n: stdio('new') } });
    assert.deepEqual((await changes.nth(1, 'the file after its folder appeared')).names.McpServer, [
      'n',
    ]);
    await writeFile(e.serverFile, '{ "mcpServers": { "n": { "command": "node" }, } ,, }');
    await changes.nth(2, 'the syntax error');
    assert.deepEqual(
      store.current().kinds.McpServer.servers.n?.config.args,
      ['new'],
      'keep last good',
    );
    const error = listed()?.errors[0];
    assert.equal(error?.file, e.serverFile);
    assert.ok((error?.line ?? 0) > 0);
    await writeJson(e.serverFile, { projects: { 'not/absolute': { mcpServers: {} } } });
    await until('the bad projects key reported', () =>
      (listed()?.errors[0]?.message ?? '').includes('projects["not/absolute"]'),
    );
    assert.deepEqual(
      store.current().kinds.McpServer.servers.n?.config.args,
      ['new'],
      'still the last good',
    );
  },
);

test(
  "Gemini's project settings: its mcpServers only, gated, below Qwen's workspace settings, only when trusted",
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await writeJson(e.user, { security: { folderTrust: { enabled: true } } });
    await writeJson(e.wsSettings, { mcpServers: { both: stdio('qwen') } });
    await mkdir(path.dirname(e.geminiSettings));
    // Comments as Gemini allows; its mcp section and trust are Gemini's, not mcpctl's.
    await writeFile(
      e.geminiSettings,
      `{
  // Gemini's own keys
  "mcp": { "excluded": ["g"], "allowed": ["nothing"] },
  "security": { "folderTrust": { "enabled": false } },
  "mcpServers": {
    "g": { "command": "node", "args": ["gemini"], "env": { "TOKEN": "$GEM_TOKEN" } },
    "both": { "command": "node", "args": ["gemini"] }
  }
}`,
    );
    e.approvals.set('g', 'approved');
    const { store, changes } = await openStore(t, e);
    assert.equal(store.current().trusted, false, "Gemini's folderTrust is not mcpctl's");
    assert.deepEqual(names(store), [], 'an untrusted folder: neither workspace file counts');
    const listed = () => store.current().sources.find((s) => s.file === e.geminiSettings);
    assert.deepEqual(
      [listed()?.scope, listed()?.exists, listed()?.inForce, listed()?.errors],
      ['workspace', true, true, []],
    );

    await writeJson(e.trust, { [e.ws]: 'TRUST_FOLDER' });
    assert.deepEqual((await changes.nth(1, 'the trust')).names.McpServer, ['both', 'g']);
    const cur = store.current().kinds.McpServer;
    assert.deepEqual(cur.servers.both?.config.args, ['qwen'], "a name in both: Qwen's wins");
    assert.equal(cur.servers.g?.scope, 'workspace');
    assert.equal(cur.servers.g?.source, e.geminiSettings);
    assert.equal(cur.servers.g?.syntax, undefined, "Qwen's syntax, the workspace scope's");
    assert.deepEqual(cur.gating.excluded, [], "Gemini's mcp.excluded is not mcpctl's");
    assert.deepEqual(cur.gating.pending, ['both'], 'gated: approval before it starts');
    assert.equal(store.current().mcp, undefined, "Gemini's mcp section is not merged");

    // Watched live; a broken edit keeps the last good and names file and line.
    await writeFile(e.geminiSettings, '{\n  "mcpServers": {\n    "g": { "command": "node" },,\n}');
    await changes.nth(2, 'the syntax error');
    assert.deepEqual(store.current().kinds.McpServer.servers.g?.config.args, ['gemini']);
    const error = listed()?.errors[0];
    assert.equal(error?.file, e.geminiSettings);
    assert.equal(error?.line, 3);
    await writeJson(e.geminiSettings, { mcpServers: { g2: stdio('g2') } });
    assert.deepEqual((await changes.nth(3, 'the fix')).names.McpServer, ['g', 'g2']);
    assert.deepEqual(listed()?.errors, []);
  },
);

test(
  "Gemini's project settings: a workspace that is the home skips it (Gemini's user file)",
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await mkdir(path.join(e.home, '.gemini'));
    await writeJson(path.join(e.home, '.gemini', 'settings.json'), {
      mcpServers: { gu: stdio('gemini-user') },
    });
    const { store } = await openStore(t, e, { workspace: e.home });
    assert.equal(store.current().kinds.McpServer.servers.gu, undefined);
    assert.ok(!store.current().sources.some((s) => s.file.includes('.gemini')));
  },
);

test(
  "Gemini's project settings: a hostile file (1001 servers, a FIFO) is refused and named",
  { timeout: 10000 },
  async (t) => {
    const e = await env(t);
    await mkdir(path.dirname(e.geminiSettings));
    const many: Record<string, unknown> = {};
    for (let i = 0; i <= 1000; i++) many[`s${i}`] = stdio(String(i));
    await writeJson(e.geminiSettings, { mcpServers: many });
    const { store, changes } = await openStore(t, e);
    const listed = () => store.current().sources.find((s) => s.file === e.geminiSettings);
    assert.deepEqual(names(store), []);
    assert.match(listed()?.errors[0]?.message ?? '', /1001 servers, more than the 1000/);
    await rm(e.geminiSettings);
    await changes.nth(1, 'the removal');
    execFileSync('mkfifo', [e.geminiSettings]);
    await until('the FIFO reported', () => (listed()?.errors.length ?? 0) > 0);
    assert.equal(listed()?.errors[0]?.file, e.geminiSettings);
    assert.deepEqual(names(store), []);
  },
);
