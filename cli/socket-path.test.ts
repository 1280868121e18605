import assert from 'node:assert/strict';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CliError } from './errors.js';
import {
  SocketDirError,
  homeDirectory,
  prepareSocketDir,
  probeSocket,
  resolveSocketPath,
} from './socket-path.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'mcpctl-sock-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('resolveSocketPath', () => {
  it('--socket, then $MCPCTL_SOCKET, then $XDG_RUNTIME_DIR, then ~/.mcpctl; always absolute', () => {
    const env = { MCPCTL_SOCKET: '/e/s.sock', XDG_RUNTIME_DIR: '/run/user/1' };
    assert.equal(resolveSocketPath({ flag: 'rel.sock', env, cwd: '/w' }), '/w/rel.sock');
    assert.equal(resolveSocketPath({ env, home: '/h' }), '/e/s.sock');
    assert.equal(
      resolveSocketPath({ env: { XDG_RUNTIME_DIR: '/run/user/1' }, home: '/h' }),
      '/run/user/1/mcpctl/mcpctl.sock',
    );
    assert.equal(
      resolveSocketPath({ env: { MCPCTL_SOCKET: ' ', XDG_RUNTIME_DIR: '' }, home: '/h' }),
      '/h/.mcpctl/mcpctl.sock',
    );
  });
});

describe('resolveSocketPath with a broken environment (issue 13, finding 15)', () => {
  it('ignores a relative XDG_RUNTIME_DIR and refuses an empty or relative HOME', () => {
    assert.equal(
      resolveSocketPath({ env: { XDG_RUNTIME_DIR: 'run' }, home: '/h', cwd: '/w' }),
      '/h/.mcpctl/mcpctl.sock',
    );
    for (const home of ['', 'rel/home'])
      assert.throws(
        () => resolveSocketPath({ env: {}, home, cwd: '/w' }),
        (e: Error) =>
          e instanceof CliError && /HOME is (empty|"rel\/home", not an absolute)/.test(e.message),
        JSON.stringify(home),
      );
    // --socket or MCPCTL_SOCKET need no HOME.
    assert.equal(resolveSocketPath({ env: { MCPCTL_SOCKET: 's' }, home: '', cwd: '/w' }), '/w/s');
    assert.equal(homeDirectory('/h'), '/h');
  });
});

describe('prepareSocketDir', () => {
  it('creates a missing directory with mode 0700', () => {
    const sock = path.join(root, 'new', 'deeper', 'd.sock');
    prepareSocketDir(sock);
    assert.equal(statSync(path.dirname(sock)).mode & 0o777, 0o700);
  });

  it('refuses a group- or world-writable directory, and a file', () => {
    const open = path.join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    assert.throws(
      () => prepareSocketDir(path.join(open, 'd.sock')),
      (e: Error) => e instanceof SocketDirError && /everyone/.test(e.message),
    );
    const group = path.join(root, 'group');
    mkdirSync(group);
    chmodSync(group, 0o770);
    assert.throws(() => prepareSocketDir(path.join(group, 'd.sock')), /its group/);
    const file = path.join(root, 'file');
    writeFileSync(file, '');
    assert.throws(() => prepareSocketDir(path.join(file, 'd.sock')), SocketDirError);
  });

  it('never advises opening up or locking down a shared directory such as /tmp (issue 22)', () => {
    // /tmp as root sees it: ours, world-writable, sticky. chmod 700 there would break the system.
    const shared = path.join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    assert.throws(
      () => prepareSocketDir(path.join(shared, 'd.sock')),
      (e: Error) =>
        e instanceof SocketDirError &&
        !/chmod/.test(e.message) &&
        /shared/.test(e.message) &&
        /MCPCTL_SOCKET/.test(e.message) &&
        /--socket/.test(e.message),
    );
  });

  it('refuses a path too long for a Unix socket', () => {
    assert.throws(
      () => prepareSocketDir(path.join(root, 'x'.repeat(120), 'd.sock')),
      /longer than/,
    );
  });
});

describe('probeSocket', () => {
  it('tells missing, live, stale and not-a-socket apart', async () => {
    const sock = path.join(root, 'probe.sock');
    assert.equal(await probeSocket(sock), 'missing');
    const server = createServer((s) => s.end());
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    assert.equal(await probeSocket(sock), 'live');
    // A second name for the socket file survives the close, like the file a killed daemon leaves.
    const dead = path.join(root, 'dead.sock');
    linkSync(sock, dead);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    assert.equal(await probeSocket(dead), 'stale');
    const plain = path.join(root, 'plain');
    writeFileSync(plain, 'x');
    assert.equal(await probeSocket(plain), 'notSocket');
  });
});
