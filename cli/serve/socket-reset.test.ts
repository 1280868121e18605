/**
 * What serve's resend rule rests on (keeper.ts, "provably never ran"): on Linux (mcpctl's
 * platform), a Unix stream socket whose peer process dies with bytes of ours queued unread
 * ends in ECONNRESET on read, and one whose peer had read everything ends plainly. A kernel that behaved otherwise would
 * make serve fail such calls as "may or may not have run" (never run one twice), and this test
 * would say why.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../../testing/temp-dir.js';
import { until } from '../../testing/until.js';

const T = { timeout: 15_000 };

/** A process listening at `socketPath` that reads (and counts) what it is sent. */
const LISTENER = `
const net = require('node:net');
let read = 0;
net.createServer((c) => c.on('data', (d) => { read += d.length; process.stdout.write(read + '\\n'); }))
  .listen(process.argv[1], () => process.stdout.write('ready\\n'));
`;

async function ending(readAll: boolean): Promise<string> {
  const dir = tempDir('mcpctl-reset-');
  const socketPath = path.join(dir.path, 's.sock');
  const child = spawn(process.execPath, ['-e', LISTENER, socketPath], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  let socket: Socket | undefined;
  try {
    await until('the listener', () => out.includes('ready'));
    socket = connect(socketPath);
    const s = socket;
    await new Promise<void>((resolve) => s.once('connect', resolve));
    const end = new Promise<string>((resolve) => {
      s.once('end', () => resolve('end'));
      s.once('error', (err: NodeJS.ErrnoException) => resolve(`${err.syscall} ${err.code}`));
    });
    s.write('read\n');
    await until('the first line read', () => out.includes('5\n'));
    if (!readAll) {
      child.kill('SIGSTOP');
      await new Promise<void>((resolve) => s.write('never read\n', () => resolve()));
    }
    child.kill('SIGKILL');
    return await end;
  } finally {
    socket?.destroy();
    child.kill('SIGKILL');
    dir.remove();
  }
}

describe('a Unix socket whose peer died', () => {
  it('with our last bytes unread: a reset on read; with all read: a plain end', T, async () => {
    assert.equal(await ending(false), 'read ECONNRESET');
    assert.equal(await ending(true), 'end');
  });
});
