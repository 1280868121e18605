import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  approvalHashOf,
  changedConnectionFields,
  connectionIdOf,
  parseConnectionId,
  workingDirectoryOf,
} from './identity.js';
import type { McpServerConfig } from './server-config.js';
import { agentEnvironment, daemonEnvironment } from './session-env.js';
import { normalizeServerConfig } from './transport.js';

const STDIO: McpServerConfig = {
  command: 'node',
  args: ['server.js', '--root', '/data'],
  cwd: '/srv',
  env: { A: '1', B: '2' },
  timeout: 60_000,
};
const HTTP: McpServerConfig = {
  httpUrl: 'https://mcp.example.test/mcp',
  headers: { Authorization: 'Bearer t', 'X-Team': 'core' },
};

/** The session's workspace root. */
const WS = '/ws';

function fingerprintOf(id: string): string {
  return parseConnectionId(id).fingerprint;
}

describe('connectionIdOf', { timeout: 10_000 }, () => {
  it('is `${name}::${16 hex}`', () => {
    assert.match(connectionIdOf('fs', STDIO, WS), /^fs::[0-9a-f]{16}$/);
    assert.notEqual(connectionIdOf('fs', STDIO, WS), connectionIdOf('fs2', STDIO, WS));
    assert.equal(
      fingerprintOf(connectionIdOf('fs', STDIO, WS)),
      fingerprintOf(connectionIdOf('fs2', STDIO, WS)),
    );
  });

  it('is stable under env and headers key order', () => {
    assert.equal(
      connectionIdOf('fs', STDIO, WS),
      connectionIdOf('fs', { ...STDIO, env: { B: '2', A: '1' } }, WS),
    );
    assert.equal(
      connectionIdOf('web', HTTP, WS),
      connectionIdOf(
        'web',
        {
          headers: { 'X-Team': 'core', Authorization: 'Bearer t' },
          httpUrl: HTTP.httpUrl,
        },
        WS,
      ),
    );
  });

  it('treats absent args, env and headers as empty', () => {
    assert.equal(
      connectionIdOf('x', { command: 'c' }, WS),
      connectionIdOf('x', { command: 'c', args: [], env: {}, headers: {} }, WS),
    );
  });

  it('changes with any connection field', () => {
    const base = connectionIdOf('fs', STDIO, WS);
    const variants: Array<[string, McpServerConfig]> = [
      ['command', { ...STDIO, command: 'bun' }],
      ['args order', { ...STDIO, args: ['--root', '/data', 'server.js'] }],
      ['args value', { ...STDIO, args: ['server.js', '--root', '/other'] }],
      ['cwd', { ...STDIO, cwd: '/elsewhere' }],
      ['env value', { ...STDIO, env: { A: '1', B: '3' } }],
      ['env key', { ...STDIO, env: { A: '1', B: '2', C: '3' } }],
      ['timeout', { ...STDIO, timeout: 1 }],
      ['oauth', { ...STDIO, oauth: { clientId: 'x' } }],
      ['oauth audiences', { ...STDIO, oauth: { audiences: ['https://api.example.com'] } }],
      ['authProviderType', { ...STDIO, authProviderType: 'google_credentials' }],
    ];
    for (const [what, config] of variants)
      assert.notEqual(connectionIdOf('fs', config, WS), base, what);
    const web = connectionIdOf('web', HTTP, WS);
    assert.notEqual(
      connectionIdOf('web', { ...HTTP, headers: { ...HTTP.headers, 'X-Team': 'ops' } }, WS),
      web,
    );
    assert.notEqual(connectionIdOf('web', { ...HTTP, httpUrl: 'https://other.test/mcp' }, WS), web);
    // Same URL over SSE is another connection than over streamable HTTP.
    assert.notEqual(connectionIdOf('web', { url: HTTP.httpUrl!, headers: HTTP.headers! }, WS), web);
  });

  it('leaves tool filters, trust, description and other non-connection fields out', () => {
    const base = connectionIdOf('fs', STDIO, WS);
    const same: McpServerConfig[] = [
      { ...STDIO, includeTools: ['read'] },
      { ...STDIO, excludeTools: ['write'] },
      { ...STDIO, trust: true },
      { ...STDIO, description: 'files' },
      { ...STDIO, discoveryTimeoutMs: 5_000 },
      { ...STDIO, updateStrategy: 'Recreate' },
    ];
    for (const config of same)
      assert.equal(connectionIdOf('fs', config, WS), base, JSON.stringify(config));
  });

  it('says where a stdio server runs: its cwd against the workspace, else the workspace', () => {
    const bare: McpServerConfig = { command: 'node', args: ['fs.js', '.'] };
    assert.equal(workingDirectoryOf(bare, '/ws/a'), '/ws/a');
    assert.equal(workingDirectoryOf({ ...bare, cwd: 'sub' }, '/ws/a'), '/ws/a/sub');
    assert.equal(workingDirectoryOf({ ...bare, cwd: '/srv' }, '/ws/a'), '/srv');
    assert.equal(workingDirectoryOf(HTTP, '/ws/a'), undefined);
    // Two workspaces: the same relative config is two processes; an absolute cwd is one.
    assert.notEqual(connectionIdOf('fs', bare, '/ws/a'), connectionIdOf('fs', bare, '/ws/b'));
    const rel = { ...bare, cwd: 'sub' };
    assert.notEqual(connectionIdOf('fs', rel, '/ws/a'), connectionIdOf('fs', rel, '/ws/b'));
    assert.equal(
      connectionIdOf('fs', STDIO, '/ws/a'),
      connectionIdOf('fs', STDIO, '/ws/b'),
      'absolute cwd',
    );
    // Spelling the workspace out changes nothing: it is where the server runs that counts.
    assert.equal(
      connectionIdOf('fs', bare, '/ws/a'),
      connectionIdOf('fs', { ...bare, cwd: '/ws/a' }, '/ws/b'),
    );
    assert.equal(
      connectionIdOf('fs', bare, '/ws/a'),
      connectionIdOf('fs', { ...bare, cwd: '.' }, '/ws/a'),
    );
    // A remote server runs nowhere here: every workspace may share it.
    assert.equal(connectionIdOf('web', HTTP, '/ws/a'), connectionIdOf('web', HTTP, '/ws/b'));
  });

  it("says which agent's environment a stdio server starts in, by digest only", () => {
    const a = agentEnvironment({ PATH: '/bin', TOKEN: 'sekrit-a' });
    const sameAsA = agentEnvironment({ TOKEN: 'sekrit-a', PATH: '/bin' });
    const b = agentEnvironment({ PATH: '/bin' });
    const own = daemonEnvironment({ PATH: '/bin', TOKEN: 'sekrit-a' });
    const id = (env?: Parameters<typeof connectionIdOf>[3]) => connectionIdOf('fs', STDIO, WS, env);
    assert.notEqual(id(a), id(b), 'other variables: another process');
    assert.equal(id(a), id(sameAsA), 'the same variables in any order: the same process');
    // The daemon's own environment is the baseline: the id is the one without an environment.
    assert.equal(id(own), id());
    assert.notEqual(id(a), id(own));
    // A remote server starts nothing here: every environment shares it.
    assert.equal(connectionIdOf('web', HTTP, WS, a), connectionIdOf('web', HTTP, WS, b));
    assert.equal(connectionIdOf('web', HTTP, WS, a), connectionIdOf('web', HTTP, WS));
    assert.ok(!id(a).includes('sekrit'));
  });

  it('gives the Claude and Qwen shapes of one server the same id', () => {
    const claude = normalizeServerConfig({ type: 'http', url: 'https://mcp.example.test/mcp' });
    assert.equal(
      connectionIdOf('web', claude, WS),
      connectionIdOf('web', { httpUrl: 'https://mcp.example.test/mcp' }, WS),
    );
  });
});

describe('parseConnectionId', { timeout: 10_000 }, () => {
  it('splits on the last "::" so names containing "::" survive', () => {
    for (const name of ['fs', 'a::b', 'ns::tool::x', '::lead']) {
      const id = connectionIdOf(name, STDIO, WS);
      assert.deepEqual(parseConnectionId(id), {
        name,
        fingerprint: fingerprintOf(connectionIdOf('fs', STDIO, WS)),
      });
    }
  });

  it('rejects a string that is not a connectionId, saying so', () => {
    assert.throws(() => parseConnectionId('plain'), {
      message: 'not a connectionId (no "::"): plain',
    });
  });
});

describe('approvalHashOf', { timeout: 10_000 }, () => {
  it('is 64 hex and independent of key order at every depth', () => {
    const hash = approvalHashOf(STDIO);
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(
      approvalHashOf({
        timeout: 60_000,
        env: { B: '2', A: '1' },
        cwd: '/srv',
        args: STDIO.args!,
        command: 'node',
      }),
      hash,
    );
  });

  it('ignores description, scope and extensionName at the top level', () => {
    const hash = approvalHashOf(STDIO);
    assert.equal(approvalHashOf({ ...STDIO, description: 'files' }), hash);
    assert.equal(approvalHashOf({ ...STDIO, scope: 'project' }), hash);
    assert.equal(approvalHashOf({ ...STDIO, extensionName: 'ext' }), hash);
  });

  it('counts a nested key named description (inside env)', () => {
    assert.notEqual(
      approvalHashOf({ ...STDIO, env: { ...STDIO.env, description: 'x' } }),
      approvalHashOf(STDIO),
    );
  });

  it('changes with every behavioural field', () => {
    const hash = approvalHashOf(STDIO);
    const variants: Array<[string, McpServerConfig]> = [
      ['command', { ...STDIO, command: 'bun' }],
      ['args order', { ...STDIO, args: ['--root', '/data', 'server.js'] }],
      ['cwd', { ...STDIO, cwd: '/x' }],
      ['env', { ...STDIO, env: { A: '1' } }],
      ['url', { ...STDIO, url: 'https://a.test/sse' }],
      ['httpUrl', { ...STDIO, httpUrl: 'https://a.test/mcp' }],
      ['headers', { ...STDIO, headers: { H: 'v' } }],
      ['timeout', { ...STDIO, timeout: 1 }],
      ['discoveryTimeoutMs', { ...STDIO, discoveryTimeoutMs: 1 }],
      ['trust', { ...STDIO, trust: true }],
      ['includeTools', { ...STDIO, includeTools: ['a'] }],
      ['excludeTools', { ...STDIO, excludeTools: ['a'] }],
      ['disabled', { ...STDIO, disabled: true }],
      ['updateStrategy', { ...STDIO, updateStrategy: 'Recreate' }],
      ['shared', { ...STDIO, shared: true }],
      ['oauth', { ...STDIO, oauth: { clientId: 'x' } }],
      ['authProviderType', { ...STDIO, authProviderType: 'x' }],
      ['unknown field', { ...STDIO, somethingNew: 1 }],
    ];
    const seen = new Set([hash]);
    for (const [what, config] of variants) {
      const h = approvalHashOf(config);
      assert.ok(!seen.has(h), what);
      seen.add(h);
    }
  });
});

describe('changedConnectionFields', { timeout: 10_000 }, () => {
  it('names exactly the connection fields that differ', () => {
    assert.deepEqual(
      changedConnectionFields(STDIO, { ...STDIO, description: 'x', trust: true }, WS),
      [],
    );
    assert.deepEqual(
      changedConnectionFields(STDIO, { ...STDIO, args: ['other.js'], env: { A: '2' } }, WS),
      ['args', 'env'],
    );
    assert.deepEqual(changedConnectionFields(STDIO, HTTP, WS).sort(), [
      'args',
      'command',
      'cwd',
      'env',
      'headers',
      'httpUrl',
      'timeout',
      'transport',
    ]);
  });
});
