import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { projectKeyOf } from './project-key.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';

describe('projectKeyOf', { timeout: 10_000 }, () => {
  let temp: TempDir;
  let tmp = '';
  let real = '';
  let link = '';

  before(() => {
    temp = tempDir('mcpctl-key-');
    tmp = temp.path;
    real = path.join(tmp, 'real');
    link = path.join(tmp, 'link');
    fs.mkdirSync(real);
    fs.symlinkSync(real, link);
  });

  after(() => temp.remove());

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
