import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { approvalHashOf, type McpServerConfig } from '../api/index.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { ApprovalStore } from './store.js';
import { repositoryOf } from './work-tree.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args],
    {
      cwd,
      stdio: 'pipe',
    },
  );

const CONFIG: McpServerConfig = { command: 'node', args: ['server.js'] };

let temp: TempDir;
let main = '';
let linked = '';
beforeEach(() => {
  temp = tempDir('mcpctl-worktree-');
  main = path.join(temp.path, 'repo');
  linked = path.join(temp.path, 'repo-wt');
  fs.mkdirSync(main);
  git(main, 'init', '-q');
  fs.writeFileSync(path.join(main, 'a.txt'), 'a');
  git(main, 'add', '.');
  git(main, 'commit', '-qm', 'first');
  git(main, 'worktree', 'add', '-q', linked);
});
afterEach(() => temp.remove());

describe('repositoryOf', () => {
  it('a main work tree and its linked work tree are one repository', () => {
    const repo = repositoryOf(main);
    assert.equal(repo, fs.realpathSync(path.join(main, '.git')));
    assert.equal(repositoryOf(linked), repo);
  });

  it('a folder that only claims to be a work tree of it is none, nor is a link to its .git', () => {
    const claim = path.join(temp.path, 'claim');
    fs.mkdirSync(claim);
    const gitdir = path.join(main, '.git', 'worktrees', 'repo-wt');
    fs.writeFileSync(path.join(claim, '.git'), `gitdir: ${gitdir}\n`);
    assert.equal(repositoryOf(claim), undefined, 'the repository does not link it back');
    const linkedGit = path.join(temp.path, 'linked-git');
    fs.mkdirSync(linkedGit);
    fs.symlinkSync(path.join(main, '.git'), path.join(linkedGit, '.git'));
    assert.equal(repositoryOf(linkedGit), undefined);
    assert.equal(repositoryOf(temp.path), undefined, 'no .git at all');
  });

  it('another clone is another repository', () => {
    const clone = path.join(temp.path, 'clone');
    git(temp.path, 'clone', '-q', main, clone);
    assert.notEqual(repositoryOf(clone), repositoryOf(main));
  });
});

describe('a decision follows the repository', { timeout: 30_000 }, () => {
  it('is carried to another work tree for the identical config only, and says from where', async () => {
    const store = await ApprovalStore.open({ path: path.join(temp.path, 'approvals.json') });
    const hash = approvalHashOf(CONFIG);
    await store.approve(main, 'fs', hash);
    const key = { record: 'fs', hash };
    assert.equal(store.stateOf(linked, key), 'approved');
    assert.equal(store.carriedFrom(linked, key), fs.realpathSync(main));
    assert.equal(store.carriedFrom(main, key), undefined, 'the own decision is not carried');
    const other = { record: 'fs', hash: approvalHashOf({ ...CONFIG, args: ['evil.js'] }) };
    assert.equal(store.stateOf(linked, other), 'pending', 'another config is asked again');
    const clone = path.join(temp.path, 'clone');
    git(temp.path, 'clone', '-q', main, clone);
    assert.equal(store.stateOf(clone, key), 'pending');
    // The work tree's own decision wins; among carried ones a rejection wins.
    await store.reject(linked, 'fs', hash);
    assert.equal(store.stateOf(linked, key), 'rejected');
    assert.equal(store.carriedFrom(linked, key), undefined);
    const third = path.join(temp.path, 'repo-wt3');
    git(main, 'worktree', 'add', '-q', third);
    assert.equal(store.stateOf(third, key), 'rejected');
  });
});
