import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  linkSync,
  mkdirSync,
  symlinkSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CliError } from '../errors.js';
import {
  SocketDirError,
  UnsafeSocketError,
  checkSocketPlace,
  homeDirectory,
  prepareSocketDir,
  probeSocket,
  resolveSocketPath,
} from './socket-path.js';
import { tempDir } from '../../testing/temp-dir.js';

const temp = tempDir('mcpctl-sock-');
const root = temp.path;
after(temp.remove);

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

describe('checkSocketPlace (issue 31)', () => {
  const uid = process.getuid?.() ?? 0;
  const refused = (socket: string, what: RegExp, asUid = uid) =>
    assert.throws(
      () => checkSocketPlace(socket, asUid),
      (e: Error) =>
        e instanceof UnsafeSocketError &&
        e.message.startsWith(`mcpctl refuses to connect to ${socket}, so nothing`) &&
        what.test(e.message),
      what.source,
    );

  it("passes the daemon's own socket, and nothing at the path or no directory", async () => {
    const dir = path.join(root, 'place-ok');
    mkdirSync(dir, { mode: 0o700 });
    const sock = path.join(dir, 'd.sock');
    checkSocketPlace(sock);
    checkSocketPlace(path.join(root, 'no-such-dir', 'd.sock'));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      chmodSync(sock, 0o600);
      checkSocketPlace(sock);
      // Another user's socket in our directory: only root can make one (the directory-owner
      // case below covers every uid).
      if (uid === 0) {
        chownSync(sock, 65534, 65534);
        refused(sock, /the socket is owned by uid 65534, not by you \(uid 0\)/);
        chownSync(sock, 0, 0);
      }
      chmodSync(sock, 0o660);
      refused(sock, /writable by its group \(mode 660\)/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses what the daemon would refuse to make: a directory not private, or shared', () => {
    const open = path.join(root, 'place-open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    refused(path.join(open, 'd.sock'), /socket directory .* is writable by everyone \(mode 777\)/);
    const shared = path.join(root, 'place-shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    refused(path.join(shared, 'd.sock'), /is a shared directory .*sticky/);
    const theirs = path.join(root, 'place-theirs');
    mkdirSync(theirs, { mode: 0o700 });
    refused(path.join(theirs, 'd.sock'), /socket directory .* is owned by uid/, uid + 1);
  });

  it('refuses a symbolic link and a file that is not a socket', () => {
    const dir = path.join(root, 'place-odd');
    mkdirSync(dir, { mode: 0o700 });
    const link = path.join(dir, 'link.sock');
    symlinkSync('/elsewhere/real.sock', link);
    refused(link, /it is a symbolic link \(to "\/elsewhere\/real\.sock"\)/);
    const plain = path.join(dir, 'plain.sock');
    writeFileSync(plain, '');
    refused(plain, /it is not a socket but a regular file/);
  });
});
