import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { Io } from './command-env.js';
import { run } from './program.js';
import { tempDir } from '../testing/temp-dir.js';

const temp = tempDir('mcpctl-prog-');
const root = temp.path;
after(temp.remove);
const socket = path.join(root, 'none.sock');

async function mcpctl(...args: string[]) {
  let out = '';
  let err = '';
  const io: Io = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    stdoutIsTTY: false,
    stderrIsTTY: false,
  };
  const { code } = await run(['node', 'mcpctl', '--socket', socket, ...args], io);
  return { code, out, err };
}

describe('mcpctl exit codes', () => {
  it('0 for help and version', async () => {
    assert.equal((await mcpctl('--help')).code, 0);
    assert.match((await mcpctl('--help')).out, /get \[options\] <resource>/);
    assert.equal((await mcpctl('--version')).code, 0);
    assert.equal((await mcpctl('get', '--help')).code, 0);
  });

  it('2 for bad usage, with a hint', async () => {
    for (const args of [
      [],
      ['nope'],
      ['get'],
      ['get', 'pods'],
      ['get', 'servers', '-o', 'csv'],
      ['why'],
      ['wait', 'x', '--for=condition=Ready'],
      ['get', 'events', 'x'],
      ['serve', '--meta-tools=all'],
      ['serve', '--meta-tools', 'yes'],
    ]) {
      const r = await mcpctl(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.notEqual(r.err, '');
    }
    assert.match(
      (await mcpctl('serve', '--meta-tools=all')).err,
      /'all' is not a mode; use --meta-tools .* or --meta-tools=only/,
    );
  });

  it('1 with the exact sentence when no daemon answers', async () => {
    for (const args of [
      ['get', 'servers'],
      ['describe', 'server', 'x'],
      ['stop'],
      ['wait', 'server/x', '--for=condition=Ready'],
    ]) {
      const r = await mcpctl(...args);
      assert.equal(r.code, 1);
      assert.equal(r.err, `no mcpctl daemon at ${socket}; start one with 'mcpctl daemon'\n`);
    }
  });

  it('1 for a --workspace that does not exist', async () => {
    const r = await mcpctl('get', 'servers', '--workspace', path.join(root, 'missing'));
    assert.equal(r.code, 1);
    assert.match(r.err, /does not exist/);
  });
});
