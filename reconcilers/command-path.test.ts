import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { resolveCommand } from './command-path.js';
import { tempDir } from '../testing/temp-dir.js';

describe('resolveCommand', { timeout: 10_000 }, () => {
  const temp = tempDir('mcpctl-cmd-');
  const dir = temp.path;
  const first = path.join(dir, 'first');
  const second = path.join(dir, 'second');
  after(temp.remove);

  function tool(folder: string, name: string, mode: number): string {
    const file = path.join(folder, name);
    writeFileSync(file, '#!/bin/sh\n', { flag: 'w' });
    chmodSync(file, mode);
    return file;
  }

  it('finds the first executable along the session PATH, skipping files that cannot run', () => {
    mkdirSync(first);
    mkdirSync(second);
    tool(first, 'srv', 0o644); // not executable: skipped
    const wanted = tool(second, 'srv', 0o755);
    assert.equal(resolveCommand('srv', { PATH: `relative/bin:${first}:${second}` }), wanted);
  });

  it('leaves paths, unknown names and the daemon PATH alone', () => {
    assert.equal(resolveCommand('./srv', { PATH: second }), './srv');
    assert.equal(resolveCommand('/bin/sh', { PATH: second }), '/bin/sh');
    assert.equal(resolveCommand('no-such-tool-xyz', { PATH: second }), 'no-such-tool-xyz');
    assert.equal(resolveCommand('srv', {}), 'srv');
    assert.equal(resolveCommand('sh', { PATH: process.env.PATH }), 'sh');
  });

  it('looks a removed binary up again instead of trusting what it remembered', () => {
    const gone = path.join(second, 'srv');
    assert.equal(resolveCommand('srv', { PATH: second }), gone);
    rmSync(gone);
    assert.equal(resolveCommand('srv', { PATH: second }), 'srv');
  });
});
