import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approvalHashOf, connectionIdOf } from './identity.js';
import type { LanguageServerConfig } from './lsp-config.js';
import {
  changedLanguageServerFields,
  expandLanguageServerConfig,
  isInsideFolder,
  lspApprovalHashOf,
  lspConnectionIdOf,
} from './lsp-identity.js';
import { agentEnvironment, daemonEnvironment } from './session-env.js';

const T = { timeout: 10_000 };
const TS: LanguageServerConfig = {
  command: 'typescript-language-server',
  args: ['--stdio'],
  extensionToLanguage: { '.ts': 'typescript' },
  initializationOptions: { preferences: { quoteStyle: 'single' } },
  settings: { typescript: { format: { semicolons: 'insert' } } },
};

describe('lspConnectionIdOf', T, () => {
  const id = (c: LanguageServerConfig, folder = '/ws', env = daemonEnvironment({})) =>
    lspConnectionIdOf('ts', c, folder, env);

  it('is `${name}::${16 hex}` and ignores settings, routing, timeouts and restart policy', () => {
    assert.match(id(TS), /^ts::[0-9a-f]{16}$/);
    const edits: LanguageServerConfig[] = [
      { ...TS, settings: { other: true } },
      { ...TS, extensionToLanguage: { '.tsx': 'typescriptreact' } },
      { ...TS, startupTimeout: 5, shutdownTimeout: 5, restartOnCrash: false, maxRestarts: 1 },
      { ...TS, disabled: false },
    ];
    for (const c of edits) assert.equal(id(c), id(TS), JSON.stringify(c));
  });

  it('changes with command, args, env, transport, initializationOptions and the folder', () => {
    const edits: LanguageServerConfig[] = [
      { ...TS, command: 'tsls' },
      { ...TS, args: ['--stdio', '--log-level=4'] },
      { ...TS, env: { A: '1' } },
      { ...TS, transport: 'tcp' },
      { ...TS, initializationOptions: {} },
    ];
    for (const c of edits) assert.notEqual(id(c), id(TS), JSON.stringify(c));
    assert.notEqual(id(TS, '/ws/a'), id(TS, '/ws/b'), 'two workspace folders, two processes');
  });

  it('an agent environment is part of it by digest; the daemon one adds nothing', () => {
    const a = agentEnvironment({ TOKEN: 'one' });
    const b = agentEnvironment({ TOKEN: 'two' });
    assert.notEqual(id(TS, '/ws', a), id(TS, '/ws', b));
    assert.equal(id(TS, '/ws', a), id(TS, '/ws', agentEnvironment({ TOKEN: 'one' })));
    assert.ok(!id(TS, '/ws', a).includes('one'));
    assert.equal(
      id(TS, '/ws', daemonEnvironment({ X: '1' })),
      id(TS, '/ws', daemonEnvironment({})),
    );
  });

  it('never equals the MCP connectionId of the same name, command and args', () => {
    const mcp = { command: TS.command, args: TS.args };
    assert.notEqual(lspConnectionIdOf('ts', mcp, '/ws'), connectionIdOf('ts', mcp, '/ws'));
  });
});

describe('lspApprovalHashOf', T, () => {
  it('covers the whole entry, settings included', () => {
    assert.match(lspApprovalHashOf(TS), /^[0-9a-f]{64}$/);
    assert.notEqual(lspApprovalHashOf(TS), lspApprovalHashOf({ ...TS, settings: {} }));
    assert.equal(lspApprovalHashOf({ ...TS }), lspApprovalHashOf(TS));
  });

  it('an MCP approval hash of the same text never matches (the kind marker)', () => {
    const same = { command: 'node', args: ['server.js'] };
    assert.notEqual(lspApprovalHashOf(same), approvalHashOf(same));
    assert.notEqual(lspApprovalHashOf(same), approvalHashOf(same));
  });
});

describe('expandLanguageServerConfig', T, () => {
  it('expands command, args, env values and workspaceFolder in Claude syntax', () => {
    const r = expandLanguageServerConfig(
      {
        command: '${BIN}/server',
        args: ['--root', '${ROOT:-src}'],
        env: { TOKEN: '${TOKEN}' },
        workspaceFolder: 'packages/${PKG}',
        settings: { keep: '${TOKEN}' },
        extensionToLanguage: { '.ts': 'typescript' },
      },
      { BIN: '/opt/bin', TOKEN: 'sekrit', PKG: 'app' },
    );
    assert.ok(r.ok);
    assert.equal(r.config.command, '/opt/bin/server');
    assert.deepEqual(r.config.args, ['--root', 'src']);
    assert.deepEqual(r.config.env, { TOKEN: 'sekrit' });
    assert.equal(r.config.workspaceFolder, 'packages/app');
    assert.deepEqual(r.config.settings, { keep: '${TOKEN}' }, 'settings are not expanded');
    assert.ok(r.substituted.includes('sekrit'));
  });

  it('an unset variable without default is missing; nothing is produced', () => {
    const r = expandLanguageServerConfig({ command: 'x', args: ['${NOPE}', '${constructor}'] }, {});
    assert.deepEqual(r, { ok: false, missing: ['NOPE', 'constructor'] });
  });

  it('an entry without references comes back as the same object', () => {
    const r = expandLanguageServerConfig(TS, {});
    assert.ok(r.ok);
    assert.equal(r.config, TS);
  });
});

describe('isInsideFolder', T, () => {
  it('the folder itself or below it, never a sibling that shares a prefix', () => {
    assert.equal(isInsideFolder('/ws', '/ws'), true);
    assert.equal(isInsideFolder('/ws/a/b', '/ws'), true);
    assert.equal(isInsideFolder('/ws/..foo', '/ws'), true);
    assert.equal(isInsideFolder('/wsx', '/ws'), false);
    assert.equal(isInsideFolder('/', '/ws'), false);
  });
});

describe('changedLanguageServerFields', T, () => {
  it('names the fields that replace the process, never settings or routing', () => {
    assert.deepEqual(changedLanguageServerFields(TS, { ...TS, settings: { a: 2 } }), []);
    assert.deepEqual(
      changedLanguageServerFields(TS, { ...TS, extensionToLanguage: { '.mts': 'typescript' } }),
      [],
    );
    assert.deepEqual(changedLanguageServerFields(TS, { ...TS, args: ['--stdio', '-v'] }), ['args']);
    assert.deepEqual(
      changedLanguageServerFields(TS, { ...TS, command: 'other', workspaceFolder: 'pkg' }),
      ['command', 'workspaceFolder'],
    );
  });
});
