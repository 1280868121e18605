import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assembleMcpServers, configsOf, type SourceServers } from './assemble.js';
import type { McpServerConfig } from './server-config.js';
import { SCOPE_PRECEDENCE, type Scope } from './scope.js';

function source(scope: Scope, servers: Record<string, McpServerConfig>): SourceServers {
  return { scope, file: `/files/${scope}.json`, servers };
}

/** Every scope defines "fs" with its own command, so the winner is visible. */
function allScopes(): SourceServers[] {
  return SCOPE_PRECEDENCE.map((scope) => source(scope, { fs: { command: scope } }));
}

describe('assembleMcpServers precedence (DESIGN §4 rule 1)', { timeout: 10_000 }, () => {
  it('orders user < project < workspace < system < session < cli', () => {
    assert.deepEqual(SCOPE_PRECEDENCE, [
      'user',
      'project',
      'workspace',
      'system',
      'session',
      'cli',
    ]);
    const sources = allScopes();
    for (let top = 0; top < sources.length; top++) {
      const upTo = sources.slice(0, top + 1);
      const out = assembleMcpServers(upTo, { trusted: true });
      assert.equal(out.fs?.config.command, SCOPE_PRECEDENCE[top]);
      assert.equal(out.fs?.scope, SCOPE_PRECEDENCE[top]);
    }
  });

  it('does not depend on the order the sources are given in', () => {
    const reversed = allScopes().reverse();
    const out = assembleMcpServers(reversed, { trusted: true });
    assert.equal(out.fs?.config.command, 'cli');
    const withoutTop = reversed.filter((s) => s.scope !== 'cli' && s.scope !== 'session');
    assert.equal(assembleMcpServers(withoutTop, { trusted: true }).fs?.scope, 'system');
  });

  it('lets the later of two sources of one scope win', () => {
    const out = assembleMcpServers(
      [
        { scope: 'session', file: 'first', servers: { fs: { command: 'one' } } },
        { scope: 'session', file: 'second', servers: { fs: { command: 'two' } } },
      ],
      { trusted: true },
    );
    assert.equal(out.fs?.config.command, 'two');
    assert.equal(out.fs?.source, 'second');
  });

  it('replaces a lower entry whole, never merging fields', () => {
    const out = assembleMcpServers(
      [
        source('user', {
          fs: { command: 'node', args: ['u.js'], env: { TOKEN: 'x' }, trust: true },
        }),
        source('project', { fs: { command: 'deno' } }),
      ],
      { trusted: true },
    );
    assert.deepEqual(out.fs?.config, { command: 'deno' });
  });

  it('tags each server with its scope and source file, and keeps servers of every scope', () => {
    const out = assembleMcpServers(
      [source('user', { a: { command: 'a' } }), source('project', { b: { command: 'b' } })],
      { trusted: true },
    );
    assert.deepEqual(out.a, {
      name: 'a',
      config: { command: 'a' },
      scope: 'user',
      source: '/files/user.json',
    });
    assert.deepEqual(out.b, {
      name: 'b',
      config: { command: 'b' },
      scope: 'project',
      source: '/files/project.json',
    });
    // A null-prototype map, so any server name is an ordinary key.
    const configs = configsOf(out);
    assert.equal(Object.getPrototypeOf(configs), null);
    assert.deepEqual({ ...configs }, { a: { command: 'a' }, b: { command: 'b' } });
  });

  it('ignores workspace settings in an untrusted folder, and only those', () => {
    const sources = [
      source('user', { fs: { command: 'user' } }),
      source('project', { fs: { command: 'project' }, p: { command: 'p' } }),
      source('workspace', { fs: { command: 'workspace' }, w: { command: 'w' } }),
    ];
    const untrusted = assembleMcpServers(sources, { trusted: false });
    assert.equal(untrusted.fs?.config.command, 'project');
    assert.equal(untrusted.w, undefined);
    assert.deepEqual(Object.keys(untrusted).sort(), ['fs', 'p']);
    const trusted = assembleMcpServers(sources, { trusted: true });
    assert.equal(trusted.fs?.config.command, 'workspace');
    assert.equal(trusted.w?.scope, 'workspace');
  });

  it('treats a source without servers as empty', () => {
    const out = assembleMcpServers(
      [{ scope: 'user', file: 'u' }, source('cli', { c: { command: 'c' } })],
      {
        trusted: true,
      },
    );
    assert.deepEqual(Object.keys(out), ['c']);
  });

  it('keeps a server named "__proto__" as an ordinary entry', () => {
    const servers = JSON.parse('{"__proto__": {"command": "x"}}') as Record<
      string,
      McpServerConfig
    >;
    const out = assembleMcpServers([source('project', servers)], { trusted: true });
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(Object.getOwnPropertyDescriptor(out, '__proto__')?.value.config.command, 'x');
  });

  it('gives the same DesiredServer for the same config object, name, scope and file', () => {
    const config = { command: 'x' };
    const first = assembleMcpServers([source('user', { a: config })], { trusted: true });
    const again = assembleMcpServers([source('user', { a: config, b: { command: 'y' } })], {
      trusted: true,
    });
    assert.equal(again.a, first.a);
    const moved = assembleMcpServers([source('project', { a: config })], { trusted: true });
    assert.notEqual(moved.a, first.a);
    assert.equal(moved.a?.scope, 'project');
    const renamed = assembleMcpServers([source('user', { z: config })], { trusted: true });
    assert.equal(renamed.z?.name, 'z');
  });
});
