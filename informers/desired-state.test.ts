import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ApprovalLookup, LanguageServerConfigs, SourceContent } from '../api/index.js';
import {
  assembleDesiredState,
  folderTrustEnabled,
  mergeMcpSettings,
  type SessionSnapshots,
} from './desired-state.js';
import type { FileSnapshot } from './file-source.js';
import type { TrustRule } from './trust.js';

function snap<T>(file: string, value: T, errors: FileSnapshot<T>['errors'] = []): FileSnapshot<T> {
  return { file, exists: true, document: value, value, errors, warnings: [] };
}

const WS = '/home/u/ws';
const approvals: ApprovalLookup = () => 'approved';

function snapshots(parts: {
  system?: SourceContent;
  user?: SourceContent;
  workspace?: SourceContent;
  project?: SourceContent;
  cli?: SourceContent;
  projectLsp?: LanguageServerConfigs;
  cliLsp?: LanguageServerConfigs;
  trust?: TrustRule[];
}): SessionSnapshots {
  return {
    system: snap('/etc/qwen-code/settings.json', parts.system ?? {}),
    user: snap('/home/u/.qwen/settings.json', parts.user ?? {}),
    workspace: snap(`${WS}/.qwen/settings.json`, parts.workspace ?? {}),
    project: snap(`${WS}/.mcp.json`, parts.project ?? {}),
    ...(parts.cli ? { cli: snap('/tmp/cli.json', parts.cli) } : {}),
    projectLsp: snap(`${WS}/.lsp.json`, parts.projectLsp ?? {}),
    ...(parts.cliLsp ? { cliLsp: snap('/tmp/lsp.json', parts.cliLsp) } : {}),
    trustedFolders: snap('/home/u/.qwen/trustedFolders.json', parts.trust ?? []),
  };
}

test(
  'mcp merge as Qwen Code: allowed/excluded joined across layers, serverCommand the highest',
  { timeout: 5000 },
  () => {
    assert.equal(mergeMcpSettings([undefined, undefined, undefined]), undefined);
    assert.deepEqual(
      mergeMcpSettings([
        undefined,
        { excluded: ['w'] },
        { allowed: ['u1', 'u2'], excluded: ['u'] },
      ]),
      { allowed: ['u1', 'u2'], excluded: ['u', 'w'] },
    );
    assert.deepEqual(
      mergeMcpSettings([
        { allowed: ['s'] },
        { allowed: ['w', 'u'], serverCommand: 'wc' },
        { allowed: ['u'], serverCommand: 'uc' },
      ]),
      { allowed: ['u', 'w', 's'], serverCommand: 'wc' },
    );
    // `allowed: []` alone is deny-all; beside another layer's list it adds nothing.
    assert.deepEqual(mergeMcpSettings([undefined, { allowed: [] }, undefined]), { allowed: [] });
    assert.deepEqual(mergeMcpSettings([undefined, { allowed: [] }, { allowed: ['u'] }]), {
      allowed: ['u'],
    });
  },
);

test(
  "a repository's settings cannot take back the user's exclusion (mcp.excluded: [] in the workspace)",
  { timeout: 5000 },
  () => {
    const s = assembleDesiredState({
      workspace: WS,
      snapshots: snapshots({
        user: { mcpServers: { secret: { command: 'x' } }, mcp: { excluded: ['secret'] } },
        workspace: { mcp: { excluded: [] } },
      }),
      approvals,
    });
    assert.equal(s.trusted, true);
    assert.deepEqual(s.kinds.McpServer.gating.excluded, ['secret']);
  },
);

test(
  'a glob in mcp.excluded / mcp.allowed stands for the configured names it matches',
  { timeout: 5000 },
  () => {
    const s = assembleDesiredState({
      workspace: WS,
      snapshots: snapshots({
        user: {
          mcpServers: {
            'puppeteer-a': { command: 'x' },
            'my-puppeteer': { command: 'x' },
            github: { command: 'x' },
            gitlab: { command: 'x' },
          },
          mcp: { excluded: ['*puppeteer*'], allowed: ['git?ub', '*puppeteer*', 'plain'] },
        },
      }),
      approvals,
    });
    assert.deepEqual(s.kinds.McpServer.gating.excluded, ['my-puppeteer', 'puppeteer-a']);
    assert.deepEqual(s.kinds.McpServer.gating.allowed, [
      'plain',
      'github',
      'my-puppeteer',
      'puppeteer-a',
    ]);
  },
);

test('workspace mcp section counts only in a trusted folder', { timeout: 5000 }, () => {
  const parts = {
    user: { mcp: { excluded: ['from-user'] }, folderTrustEnabled: true },
    workspace: { mcp: { excluded: ['from-ws'] } },
  };
  const untrusted = assembleDesiredState({ workspace: WS, snapshots: snapshots(parts), approvals });
  assert.equal(untrusted.trusted, false);
  assert.deepEqual(untrusted.kinds.McpServer.gating.excluded, ['from-user']);
  const trusted = assembleDesiredState({
    workspace: WS,
    snapshots: snapshots({ ...parts, trust: [{ path: WS, level: 'TRUST_FOLDER' }] }),
    approvals,
  });
  assert.equal(trusted.trusted, true);
  assert.deepEqual(trusted.kinds.McpServer.gating.excluded, ['from-user', 'from-ws']);
});

test('folder trust is enabled by system, else user, never workspace', { timeout: 5000 }, () => {
  assert.equal(folderTrustEnabled({}, {}), false);
  assert.equal(folderTrustEnabled({}, { folderTrustEnabled: true }), true);
  assert.equal(
    folderTrustEnabled({ folderTrustEnabled: false }, { folderTrustEnabled: true }),
    false,
  );
  const s = assembleDesiredState({
    workspace: WS,
    snapshots: snapshots({ workspace: { folderTrustEnabled: true } }),
    approvals,
  });
  assert.equal(s.trusted, true, 'a workspace cannot turn folder trust on for itself');
});

test(
  'servers: precedence, scopes and files; untrusted drops workspace servers',
  { timeout: 5000 },
  () => {
    const parts = {
      system: { mcpServers: { sys: { command: 's' } } },
      user: {
        mcpServers: { a: { command: 'user' }, u: { command: 'u' } },
        folderTrustEnabled: true,
      },
      workspace: { mcpServers: { a: { command: 'ws' }, w: { command: 'w' } } },
      project: { mcpServers: { a: { command: 'proj' }, p: { command: 'p' } } },
      cli: { mcpServers: { sys: { command: 'cli' } } },
    };
    const trusted = assembleDesiredState({
      workspace: WS,
      snapshots: snapshots({ ...parts, trust: [{ path: WS, level: 'TRUST_FOLDER' }] }),
      approvals,
      sessionServers: { sess: { type: 'http', url: 'http://localhost:1/mcp' } },
    });
    assert.deepEqual(Object.keys(trusted.kinds.McpServer.servers).sort(), [
      'a',
      'p',
      'sess',
      'sys',
      'u',
      'w',
    ]);
    assert.equal(trusted.kinds.McpServer.servers.a?.scope, 'workspace');
    assert.equal(trusted.kinds.McpServer.servers.a?.config.command, 'ws');
    assert.equal(trusted.kinds.McpServer.servers.sys?.scope, 'cli');
    assert.equal(trusted.kinds.McpServer.servers.sys?.source, '/tmp/cli.json');
    assert.equal(trusted.kinds.McpServer.servers.sess?.scope, 'session');
    assert.equal(
      trusted.kinds.McpServer.servers.sess?.config.httpUrl,
      'http://localhost:1/mcp',
      'normalised',
    );
    const untrusted = assembleDesiredState({
      workspace: WS,
      snapshots: snapshots(parts),
      approvals,
    });
    assert.equal(untrusted.kinds.McpServer.servers.a?.scope, 'project');
    assert.equal(untrusted.kinds.McpServer.servers.w, undefined);
  },
);

test('gating: ceiling, approvals and the sources list', { timeout: 5000 }, () => {
  const s = assembleDesiredState({
    workspace: WS,
    snapshots: snapshots({
      user: { mcp: { allowed: ['a', 'b', 'c'] } },
      project: { mcpServers: { p: { command: 'p' } } },
    }),
    ceiling: ['a', 'b'],
    approvals: () => 'pending',
  });
  assert.deepEqual(s.kinds.McpServer.gating.allowed, ['a', 'b']);
  assert.deepEqual(s.kinds.McpServer.gating.pending, ['p']);
  assert.deepEqual(
    s.sources.map((x) => x.scope),
    ['system', 'user', 'workspace', 'project', 'project', 'trust'],
  );
  assert.deepEqual(
    s.sources.map((x) => x.file),
    [
      '/etc/qwen-code/settings.json',
      '/home/u/.qwen/settings.json',
      `${WS}/.qwen/settings.json`,
      `${WS}/.mcp.json`,
      `${WS}/.lsp.json`,
      '/home/u/.qwen/trustedFolders.json',
    ],
  );
});

const lsp = (command: string) => ({ command, extensionToLanguage: { '.ts': 'typescript' } });

test(
  'language servers: --lsp-config replaces .lsp.json per name, each with kind, scope and file',
  { timeout: 5000 },
  () => {
    const s = assembleDesiredState({
      workspace: WS,
      snapshots: snapshots({
        projectLsp: { ts: lsp('project-ts'), py: lsp('pyright') },
        cliLsp: { ts: lsp('cli-ts') },
        project: { mcpServers: { ts: { command: 'an-mcp-server' } } },
      }),
      approvals,
    });
    assert.deepEqual(s.kinds.LanguageServer.servers.ts, {
      kind: 'LanguageServer',
      name: 'ts',
      config: lsp('cli-ts'),
      scope: 'cli',
      source: '/tmp/lsp.json',
    });
    assert.equal(s.kinds.LanguageServer.servers.py?.scope, 'project');
    assert.equal(s.kinds.LanguageServer.servers.py?.source, `${WS}/.lsp.json`);
    assert.equal(
      s.kinds.McpServer.servers.ts?.config.command,
      'an-mcp-server',
      'the kinds never mix',
    );
    assert.deepEqual(
      s.sources.map((x) => x.scope),
      ['system', 'user', 'workspace', 'project', 'project', 'cli', 'trust'],
    );
  },
);

test(
  'language server gating: pending project servers, the LSP ceiling as allowed',
  { timeout: 5000 },
  () => {
    const parts = {
      projectLsp: { z: lsp('z'), a: lsp('a'), ok: lsp('ok') },
      cliLsp: { mine: lsp('mine') },
    };
    const open = assembleDesiredState({
      workspace: WS,
      snapshots: snapshots(parts),
      approvals,
      lspApprovals: (server) => (server.name === 'ok' ? 'approved' : 'pending'),
    });
    assert.deepEqual(open.kinds.LanguageServer.gating, { excluded: [], pending: ['a', 'z'] });
    assert.equal(open.kinds.McpServer.gating.allowed, undefined, 'the MCP gating has no allowlist');
    const byDefault = assembleDesiredState({
      workspace: WS,
      snapshots: snapshots(parts),
      approvals,
    });
    assert.deepEqual(
      byDefault.kinds.LanguageServer.gating.pending,
      ['a', 'ok', 'z'],
      'nothing approved by default',
    );
    const capped = assembleDesiredState({
      workspace: WS,
      snapshots: snapshots(parts),
      approvals,
      ceiling: ['x'],
      lspCeiling: ['mine', 'a'],
    });
    assert.deepEqual(capped.kinds.LanguageServer.gating.allowed, ['mine', 'a']);
    assert.deepEqual(capped.kinds.McpServer.gating.allowed, ['x'], 'each kind has its own ceiling');
    const none = assembleDesiredState({
      workspace: WS,
      snapshots: snapshots(parts),
      approvals,
      lspCeiling: [],
    });
    assert.deepEqual(none.kinds.LanguageServer.gating.allowed, [], '[] stays deny-all');
  },
);

test(
  "a Qwen-only exclusion (recorded in mcpctl's server file) keeps Qwen from a server, not mcpctl",
  { timeout: 5000 },
  () => {
    const base = snapshots({
      user: { mcp: { excluded: ['wsrv', 'mine'] } },
      workspace: {
        mcpServers: { wsrv: { command: 'w' }, mine: { command: 'm' }, other: { command: 'o' } },
        mcp: { excluded: ['other'] },
      },
    });
    const record = (qwenOnlyExcluded: string[]) =>
      assembleDesiredState({
        workspace: WS,
        snapshots: {
          ...base,
          servers: snap('/home/u/.mcpctl/mcp.json', { qwenOnlyExcluded }),
        },
        approvals,
      }).kinds.McpServer.gating.excluded;
    assert.deepEqual(record([]), ['wsrv', 'mine', 'other']);
    assert.deepEqual(record(['wsrv']), ['mine', 'other']);
    // Only the user file's entries: the repository's own exclusion still counts.
    assert.deepEqual(record(['wsrv', 'other']), ['mine', 'other']);
  },
);
