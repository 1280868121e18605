import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../../testing/temp-dir.js';
import { applyPlan, undoSetup } from './apply.js';
import { CLAUDE } from './claude.js';
import { planSetup, realpathOrUndefined } from './planner.js';
import { serverFileSide } from './server-file-side.js';
import type { SetupContext } from './types.js';

describe('setup writes and undoes a plan', () => {
  const dir = tempDir('mcpctl-setup-apply-');
  after(() => dir.remove());

  function setUp(name: string): { ctx: SetupContext; user: string } {
    const home = path.join(dir.path, name, 'home');
    const workspace = path.join(dir.path, name, 'ws');
    mkdirSync(home, { recursive: true });
    mkdirSync(workspace, { recursive: true });
    const user = path.join(home, '.claude.json');
    writeFileSync(user, '{ "mcpServers": { "a": { "command": "a", "env": { "K": "sk-1" } } } }\n', {
      mode: 0o640,
    });
    const ctx: SetupContext = {
      home,
      workspace,
      reach: { kind: 'serve', command: 'mcpctl', args: ['serve'] },
      realpath: realpathOrUndefined,
    };
    return { ctx, user };
  }

  it('keeps the mode, backs up the bytes privately, and undoes byte for byte', async () => {
    const { ctx, user } = setUp('ok');
    const side = serverFileSide(ctx.home, {});
    const before = readFileSync(user, 'utf8');
    const plan = await planSetup(CLAUDE, ctx, side);
    const backup = await applyPlan(plan, ctx.home, side);
    assert.equal(statSync(user).mode & 0o777, 0o640);
    assert.equal(statSync(backup).mode & 0o777, 0o700);
    assert.equal(statSync(path.join(backup, 'manifest.json')).mode & 0o777, 0o600);
    assert.equal(statSync(side.path).mode & 0o777, 0o600);
    assert.match(readFileSync(side.path, 'utf8'), /"a"/);
    const undone = await undoSetup(ctx.home, 'claude', side, false);
    assert.deepEqual(undone?.restored, [user]);
    assert.equal(readFileSync(user, 'utf8'), before);
    assert.equal(existsSync(side.path), false, 'the server file setup made is gone');
    assert.equal(await undoSetup(ctx.home, 'claude', side, false), undefined);
  });

  it('writes nothing when the agent wrote its file after the plan was made', async () => {
    const { ctx, user } = setUp('raced');
    const side = serverFileSide(ctx.home, {});
    const plan = await planSetup(CLAUDE, ctx, side);
    writeFileSync(user, '{ "mcpServers": {}, "numStartups": 2 }\n');
    await assert.rejects(applyPlan(plan, ctx.home, side), /changed while setup planned/);
    assert.equal(readFileSync(user, 'utf8'), '{ "mcpServers": {}, "numStartups": 2 }\n');
    assert.equal(existsSync(side.path), false);
    assert.equal(existsSync(path.join(ctx.home, '.mcpctl', 'backups')), false);
  });

  it('puts back what it wrote when an agent file cannot be written', async () => {
    const { ctx, user } = setUp('failing');
    writeFileSync(
      path.join(ctx.workspace, '.mcp.json'),
      '{ "mcpServers": { "p": { "command": "p" } } }',
    );
    const side = serverFileSide(ctx.home, {});
    const before = readFileSync(user, 'utf8');
    const plan = await planSetup(CLAUDE, ctx, side);
    assert.equal(plan.files.length, 2);
    // Where setup would make the folder of .claude/settings.local.json, a file now stands.
    writeFileSync(path.join(ctx.workspace, '.claude'), 'not a folder');
    await assert.rejects(applyPlan(plan, ctx.home, side), /was put back, nothing changed/);
    assert.equal(readFileSync(user, 'utf8'), before);
    assert.equal(existsSync(side.path), false);
    assert.equal(
      await undoSetup(ctx.home, 'claude', side, false),
      undefined,
      'nothing left to undo',
    );
  });
});
