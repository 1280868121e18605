/**
 * Pins both kinds' identities byte for byte: the connectionId (which process is reused), the
 * approval hash (which decision holds) and the record an approval is kept under. A refactor of
 * the kinds must leave every one of these equal, or approvals on users' disks stop matching.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  agentEnvironment,
  approvalHashOf,
  changedConnectionFields,
  changedLanguageServerFields,
  connectionIdOf,
  lspApprovalHashOf,
  lspConnectionIdOf,
  type LanguageServerConfig,
  type McpServerConfig,
} from '../api/index.js';
import { approvalKeyOf } from './kinds.js';

const ENV = agentEnvironment({ PATH: '/bin', HOME: '/h' });

const MCP: readonly [string, McpServerConfig, string, string, string][] = [
  [
    'fs',
    {
      command: 'node',
      args: ['s.js', '--x'],
      env: { B: '2', A: '1' },
      cwd: 'sub',
      description: 'd',
    },
    'fs::e202404d2a9dffba',
    'fs::ea9440f173128a71',
    '8c9da1178f05fceff7ca1831d05a633f8e8dd38d685c684b55aa65f6f8cf9fe1',
  ],
  [
    'web',
    {
      httpUrl: 'https://x.test/mcp',
      headers: { Authorization: 'Bearer t' },
      timeout: 5000,
      trust: true,
    },
    'web::99a5fe1dba8764e5',
    'web::99a5fe1dba8764e5',
    '933c4600bdf545fb072a80aab1faff8545667aa548e39b0e5a72e263c9384bb6',
  ],
  [
    'sse',
    { url: 'https://x.test/sse', includeTools: ['a'], oauth: { enabled: true } },
    'sse::8ffbcfca7cb8b06d',
    'sse::8ffbcfca7cb8b06d',
    '300bf5f5a2bea6930c0dab0b28288791d5a82828cf627fbcf289f4358fa022f3',
  ],
];

const LSP: readonly [string, LanguageServerConfig, string, string, string][] = [
  [
    'ts',
    {
      command: 'typescript-language-server',
      args: ['--stdio'],
      extensionToLanguage: { '.ts': 'typescript' },
    },
    'ts::fbbc236850eb4dcd',
    'ts::8fa3da03c126a128',
    'ec09ade54740a1334d30559b22f0bc9f613ade4777a801b6bba0ef88e63e303b',
  ],
  [
    'py',
    {
      command: 'pylsp',
      env: { K: 'v' },
      initializationOptions: { a: [1, 2] },
      settings: { s: 1 },
      workspaceFolder: 'pkg',
      extensionToLanguage: { '.py': 'python' },
      maxRestarts: 2,
    },
    'py::c283f1ed196faf8a',
    'py::858242750471cf5a',
    'e66d5cd3c4ef8c24b1921fa2e582a14e6b1e7c5549d3005c93bcf9e157d50374',
  ],
];

describe('kind identities are pinned', () => {
  it('MCP servers: connectionId, approval hash, record name, changed fields', () => {
    for (const [name, config, id, agentId, hash] of MCP) {
      assert.equal(connectionIdOf(name, config, '/ws'), id, name);
      assert.equal(connectionIdOf(name, config, '/ws', ENV), agentId, name);
      assert.equal(approvalHashOf(config), hash, name);
      const key = approvalKeyOf({ name, config, scope: 'project', source: '/ws/.mcp.json' });
      assert.deepEqual(key, { record: name, hash });
      assert.deepEqual(changedConnectionFields(config, { ...config, args: ['z'] }, '/ws'), [
        'args',
      ]);
    }
  });

  it('language servers: connectionId, approval hash, record name, changed fields', () => {
    for (const [name, config, id, agentId, hash] of LSP) {
      assert.equal(lspConnectionIdOf(name, config, '/ws'), id, name);
      assert.equal(lspConnectionIdOf(name, config, '/ws/pkg', ENV), agentId, name);
      assert.equal(lspApprovalHashOf(config), hash, name);
      const key = approvalKeyOf({
        kind: 'LanguageServer',
        name,
        config,
        scope: 'project',
        source: '/ws/.lsp.json',
      });
      assert.deepEqual(key, { record: `languageserver/${name}`, hash });
      assert.deepEqual(changedLanguageServerFields(config, { ...config, command: 'x' }), [
        'command',
      ]);
    }
  });
});
