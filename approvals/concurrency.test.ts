import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { approvalHashOf } from '../api/index.js';
import { ApprovalStore } from './store.js';
import { DONE, GO, READY, childServerConfig, childServerName } from './testing/child-protocol.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';

const CHILD = fileURLToPath(new URL('./testing/approve-child.js', import.meta.url));
const PER_CHILD = 25;

interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly ready: Promise<void>;
  readonly exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function startChild(file: string, root: string, prefix: string): Child {
  const child = spawn(process.execPath, [CHILD, file, root, prefix, String(PER_CHILD)]);
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.split('\n').includes(READY)) markReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  // A child that dies before "ready" must not leave the test waiting forever.
  void exited.then(markReady);
  return { process: child, ready, exited };
}

let temp: TempDir;
let tmp = '';

beforeEach(() => {
  temp = tempDir('mcpctl-approvals-conc-');
  tmp = temp.path;
});

afterEach(() => temp.remove());

describe('concurrent writers in separate processes', { timeout: 60_000 }, () => {
  it('keeps every decision of two processes approving different servers at once', async () => {
    const file = path.join(tmp, '.qwen', 'mcpApprovals.json');
    const root = path.join(tmp, 'ws');
    fs.mkdirSync(root);
    // A decision that exists before either child starts must survive them too.
    const before = await ApprovalStore.open({ path: file });
    await before.reject(root, 'older', approvalHashOf({ command: 'old' }));

    const children = [startChild(file, root, 'a'), startChild(file, root, 'b')];
    await Promise.all(children.map((c) => c.ready));
    // Both are loaded and waiting; release them together so their writes interleave.
    for (const c of children) c.process.stdin.end(`${GO}\n`);
    const results = await Promise.all(children.map((c) => c.exited));
    for (const r of results) {
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.split('\n').includes(DONE), r.stdout);
    }

    const after = await ApprovalStore.open({ path: file });
    assert.deepEqual(after.errors, []);
    for (const prefix of ['a', 'b']) {
      for (let i = 0; i < PER_CHILD; i++) {
        const name = childServerName(prefix, i);
        assert.equal(after.getState(root, name, childServerConfig(name)), 'approved', name);
      }
    }
    assert.equal(after.getState(root, 'older', { command: 'old' }), 'rejected');
    const onDisk = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, object>;
    assert.equal(Object.keys(onDisk[root]).length, 2 * PER_CHILD + 1);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['mcpApprovals.json']);
  });
});
