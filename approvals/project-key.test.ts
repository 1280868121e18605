import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { projectKeyOf } from './project-key.js';

describe('projectKeyOf', { timeout: 10_000 }, () => {
  let tmp = '';
  let real = '';
  let link = '';

  before(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpctl-key-')));
    real = path.join(tmp, 'real');
    link = path.join(tmp, 'link');
    fs.mkdirSync(real);
    fs.symlinkSync(real, link);
  });

  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is the realpath: a symlinked root and its target have the same key', () => {
    assert.equal(projectKeyOf(link), real);
    assert.equal(projectKeyOf(real), real);
    assert.equal(projectKeyOf(`${link}/`), real);
  });

  it('resolves relative roots', () => {
    assert.equal(projectKeyOf(path.relative(process.cwd(), real)), real);
  });

  it('gives a missing root the key it will have once created', () => {
    const missing = path.join(link, 'not-yet', 'deeper');
    assert.equal(projectKeyOf(missing), path.join(real, 'not-yet', 'deeper'));
    fs.mkdirSync(missing, { recursive: true });
    assert.equal(projectKeyOf(missing), path.join(real, 'not-yet', 'deeper'));
  });

  it('falls back to the resolved path when nothing is a symlink', () => {
    const missing = path.join(tmp, 'absent');
    assert.equal(projectKeyOf(missing), path.resolve(missing));
  });
});
