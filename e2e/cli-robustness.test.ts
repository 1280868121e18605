/**
 * e2e: the CLI and serve facing a daemon or a workspace that is not what they expect (issue
 * 22) — a regular file given as the workspace, a daemon that does not answer, an older daemon,
 * serves racing to start one, a daemon whose socket file was deleted.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TestEnv } from '../cli/testing/harness.js';

const T = { timeout: 90_000 };

describe('mcpctl robustness (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('a regular file is refused as the workspace, by every command', T, async () => {
    await env.startDaemon();
    const file = path.join(env.root, 'not-a-dir');
    writeFileSync(file, '{}\n');
    for (const args of [
      ['get', 'servers'],
      ['reload'],
      ['serve'],
      ['daemon', '--socket', path.join(env.root, 'other', 'd.sock')],
    ]) {
      const r = await env.cli([...args, '--workspace', file]);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /workspace .*not-a-dir is not a directory; pass an existing one/);
      assert.equal(r.stdout, '');
    }
  });
});
