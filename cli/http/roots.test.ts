import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { tempDir, type TempDir } from '../../testing/temp-dir.js';
import { workspaceOfRoots } from './roots.js';

describe('the workspace of an agent’s roots', () => {
  let dir: TempDir;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  it('is the first file:// root that is a directory, by its real path', () => {
    const ws = dir.file('ws');
    mkdirSync(ws);
    writeFileSync(dir.file('file'), '');
    symlinkSync(ws, dir.file('link'));
    const uri = (p: string) => pathToFileURL(p).href;
    assert.equal(
      workspaceOfRoots({
        roots: [
          { uri: 'https://example.com/' },
          { uri: uri(dir.file('missing')) },
          { uri: uri(dir.file('file')) },
          { uri: uri(dir.file('link')) },
          { uri: uri(dir.path) },
        ],
      }),
      ws,
    );
  });

  it('is nothing for an answer of another shape', () => {
    for (const bad of [
      undefined,
      null,
      {},
      { roots: 'x' },
      { roots: [null, 1, { uri: 2 }] },
      { roots: [] },
    ])
      assert.equal(workspaceOfRoots(bad), undefined, JSON.stringify(bad));
  });
});
