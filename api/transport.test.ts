import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { McpServerConfig } from './server-config.js';
import { validateSourceDocument } from './schema.js';
import { TransportError, normalizeServerConfig, transportOf, urlOf } from './transport.js';

describe('normalizeServerConfig (Claude .mcp.json shape → ours)', { timeout: 10_000 }, () => {
  it('turns type http + url into httpUrl', () => {
    assert.deepEqual(
      normalizeServerConfig({ type: 'http', url: 'https://a.test/mcp', headers: { H: 'v' } }),
      { httpUrl: 'https://a.test/mcp', headers: { H: 'v' } },
    );
  });

  it('keeps url for type sse and drops the type', () => {
    assert.deepEqual(normalizeServerConfig({ type: 'sse', url: 'https://a.test/sse' }), {
      url: 'https://a.test/sse',
    });
  });

  it('drops type stdio and keeps the command', () => {
    assert.deepEqual(normalizeServerConfig({ type: 'stdio', command: 'node', args: ['s.js'] }), {
      command: 'node',
      args: ['s.js'],
    });
  });

  it('lets an explicit httpUrl win over url for type http', () => {
    const out = normalizeServerConfig({
      type: 'http',
      url: 'https://a.test/sse',
      httpUrl: 'https://a.test/mcp',
    });
    assert.equal(out.type, undefined);
    assert.equal(transportOf(out), 'http');
    assert.equal(urlOf(out), 'https://a.test/mcp');
  });

  it('returns a Qwen-shape config unchanged', () => {
    const config: McpServerConfig = { command: 'node', args: ['s.js'] };
    assert.equal(normalizeServerConfig(config), config);
  });

  it('normalises every server of a .mcp.json document', () => {
    const doc = {
      mcpServers: {
        remote: { type: 'http', url: 'https://a.test/mcp' },
        events: { type: 'sse', url: 'https://a.test/sse' },
        local: { type: 'stdio', command: 'npx', args: ['-y', 'pkg'] },
        qwen: { httpUrl: 'https://b.test/mcp' },
      },
    };
    const result = validateSourceDocument(doc, normalizeServerConfig);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(
      { ...result.content.mcpServers },
      {
        remote: { httpUrl: 'https://a.test/mcp' },
        events: { url: 'https://a.test/sse' },
        local: { command: 'npx', args: ['-y', 'pkg'] },
        qwen: { httpUrl: 'https://b.test/mcp' },
      },
    );
  });
});

describe('transportOf', { timeout: 10_000 }, () => {
  it('picks stdio, http or sse from the fields present', () => {
    assert.equal(transportOf({ command: 'node' }), 'stdio');
    assert.equal(transportOf({ httpUrl: 'https://a.test' }), 'http');
    assert.equal(transportOf({ url: 'https://a.test' }), 'sse');
    assert.equal(transportOf({ url: 'https://a.test', type: 'http' }), 'http');
    assert.equal(transportOf({ httpUrl: 'https://a.test', command: 'node' }), 'http');
  });

  it('throws a clear TransportError naming the server when there is nothing to connect to', () => {
    assert.throws(
      () => transportOf({ args: ['x'] }, 'fs'),
      (e: unknown) => {
        assert.ok(e instanceof TransportError);
        assert.equal(
          e.message,
          'server fs: has neither "command" nor "httpUrl"/"url"; add a command to start it locally or a URL to reach it',
        );
        return true;
      },
    );
  });
});
