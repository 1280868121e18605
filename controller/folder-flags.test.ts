import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../testing/temp-dir.js';
import type { SessionSpec } from './daemon-sessions.js';
import { givesOwnFlags, withFolderFlags as withFlags } from './folder-flags.js';

const withFolderFlags = (spec: SessionSpec, of: typeof folder): SessionSpec => withFlags(spec, of);

const temp = tempDir('mcpctl-folder-flags-');
after(temp.remove);
const ws = path.join(temp.path, 'ws');
const other = path.join(temp.path, 'other');
mkdirSync(ws);
mkdirSync(other);
const link = path.join(temp.path, 'link');
symlinkSync(ws, link);

const folder = {
  workspace: ws,
  mcpConfigPath: '/cfg/mcp.json',
  lspConfigPath: '/cfg/lsp.json',
  ceiling: ['files', 'everything'],
  lspCeiling: ['ts'],
};

describe('withFolderFlags: configuration lives with the folder', () => {
  it("gives an opener of the folder that names no flag the folder's four", () => {
    assert.deepEqual(withFolderFlags({ workspace: ws }, folder), { ...folder, workspace: ws });
  });

  it('takes a symbolic link to the folder for the folder, and keeps the opener’s env', () => {
    const env = { vars: { TOKEN: 'a' }, label: 'serve pid 1' };
    const got = withFolderFlags({ workspace: link, env }, folder);
    assert.equal(got.mcpConfigPath, '/cfg/mcp.json');
    assert.equal(got.lspConfigPath, '/cfg/lsp.json');
    assert.equal(got.env, env, 'the environment stays the opener’s (part of the key)');
  });

  it('gives an opener with a flag of its own exactly its own files (ceilings as the daemon’s rule)', () => {
    const own = withFolderFlags({ workspace: ws, mcpConfigPath: '/mine.json' }, folder);
    assert.equal(own.mcpConfigPath, '/mine.json');
    assert.equal(own.lspConfigPath, undefined, 'no folder file mixed into its own choice');
    assert.deepEqual(own.ceiling, folder.ceiling, 'an omitted ceiling is never wider');
    const ceilingOnly = withFolderFlags({ workspace: ws, ceiling: ['files'] }, folder);
    assert.equal(ceilingOnly.mcpConfigPath, undefined);
    assert.deepEqual(ceilingOnly.ceiling, ['files']);
    const emptyCeiling = withFolderFlags({ workspace: ws, lspCeiling: [] }, folder);
    assert.deepEqual(emptyCeiling.lspCeiling, [], '[] is a flag given: none may run');
    assert.equal(emptyCeiling.mcpConfigPath, undefined);
  });

  it('gives another folder none of the daemon’s files, only its ceilings', () => {
    assert.deepEqual(withFolderFlags({ workspace: other }, folder), {
      workspace: other,
      ceiling: folder.ceiling,
      lspCeiling: folder.lspCeiling,
    });
  });

  it('says which specs give flags of their own', () => {
    assert.equal(givesOwnFlags({ workspace: ws }), false);
    assert.equal(givesOwnFlags({ workspace: ws, ceiling: [] }), true);
    assert.equal(givesOwnFlags({ workspace: ws, lspConfigPath: '/x' }), true);
  });
});
