import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { userServerFilePath, validateServerFileDocument, workspaceServers } from './server-file.js';

const T = { timeout: 5000 };

describe('userServerFilePath', () => {
  it('is <home>/.mcpctl/mcp.json unless $MCPCTL_SERVERS_PATH says otherwise', T, () => {
    assert.equal(userServerFilePath('/home/u', {}), '/home/u/.mcpctl/mcp.json');
    assert.equal(
      userServerFilePath('/home/u', { MCPCTL_SERVERS_PATH: '' }),
      '/home/u/.mcpctl/mcp.json',
    );
    assert.equal(
      userServerFilePath('/home/u', { MCPCTL_SERVERS_PATH: '/etc/mcpctl/servers.json' }),
      '/etc/mcpctl/servers.json',
    );
  });
});

describe('validateServerFileDocument', () => {
  it('reads both entry shapes, as a .mcp.json', T, () => {
    const v = validateServerFileDocument({
      mcpServers: {
        qwen: { command: 'node', args: ['s.js'] },
        claude: { type: 'http', url: 'https://example.test/mcp' },
      },
      unrelated: true,
    });
    assert.deepEqual(v.errors, []);
    assert.equal(v.content.mcpServers?.claude.httpUrl, 'https://example.test/mcp');
    assert.equal(v.content.mcpServers?.qwen.command, 'node');
  });

  it('is empty for an empty file, an error for a non-object', T, () => {
    assert.deepEqual(validateServerFileDocument(undefined), {
      content: {},
      errors: [],
      warnings: [],
    });
    assert.match(
      validateServerFileDocument([1]).errors[0]?.message ?? '',
      /expected a JSON object/,
    );
  });

  it('gives a workspace its projects servers, by resolved path', T, () => {
    const v = validateServerFileDocument({
      projects: { '/home/u/ws/': { mcpServers: { a: { command: 'a' } }, allowedTools: [] } },
    });
    assert.deepEqual(v.errors, []);
    assert.equal(workspaceServers(v.content, '/home/u/ws')?.a.command, 'a');
    assert.equal(workspaceServers(v.content, '/home/u/other'), undefined);
  });

  it('refuses a relative or control-character key, naming it escaped', T, () => {
    const v = validateServerFileDocument({
      projects: { ws: { mcpServers: {} }, '/a\x1b[31m': { mcpServers: {} } },
    });
    const messages = v.errors.map((e) => e.message);
    assert.equal(messages.length, 2);
    assert.match(messages[0] ?? '', /^projects\["ws"\]: a workspace key must be an absolute path/);
    assert.match(messages[1] ?? '', /^projects\["\/a\\u001b\[31m"\]: .*control characters/);
    assert.deepEqual(v.errors[0]?.path, ['projects', 'ws']);
  });

  it("reads the Qwen-only exclusions' names; refuses a non-map and a control character", T, () => {
    const ok = validateServerFileDocument({
      qwenOnlyExcluded: { wsrv: { from: '/ws/.qwen/settings.json' }, a: {} },
    });
    assert.deepEqual(ok.errors, []);
    assert.deepEqual(ok.content.qwenOnlyExcluded, ['a', 'wsrv']);
    const list = validateServerFileDocument({ qwenOnlyExcluded: ['wsrv'] });
    assert.match(
      list.errors[0]?.message ?? '',
      /^qwenOnlyExcluded: expected an object .*remove the key/,
    );
    const bad = validateServerFileDocument({ qwenOnlyExcluded: { 'a\x07': {} } });
    assert.match(bad.errors[0]?.message ?? '', /control character U\+0007/);
  });

  it('places an entry issue under its project, with its full path', T, () => {
    const v = validateServerFileDocument({
      projects: { '/ws': { mcpServers: { fs: { command: 'x', args: 'y' } } }, '/w2': 3 },
    });
    assert.deepEqual(v.errors[0]?.path, ['projects', '/ws', 'mcpServers', 'fs', 'args']);
    assert.match(
      v.errors[0]?.message ?? '',
      /^projects\["\/ws"\]\.mcpServers\.fs\.args: expected an array/,
    );
    assert.match(v.errors[1]?.message ?? '', /^projects\["\/w2"\]: expected an object/);
    assert.match(
      validateServerFileDocument({ projects: [] }).errors[0]?.message ?? '',
      /^projects: expected an object/,
    );
  });
});
