import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { approvalHashOf, type McpServerConfig } from '../api/index.js';
import type { ApprovalStoreError } from './errors.js';
import { ApprovalStore } from './store.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';

const FS: McpServerConfig = { command: 'node', args: ['fs.js'], env: { ROOT: '/data' } };
const WEB: McpServerConfig = { httpUrl: 'https://example.test/mcp' };

let temp: TempDir;
let tmp = '';
let file = '';
let ws = '';

beforeEach(() => {
  temp = tempDir('mcpctl-approvals-');
  tmp = temp.path;
  file = path.join(tmp, 'state', 'mcpApprovals.json');
  ws = path.join(tmp, 'ws');
  fs.mkdirSync(ws);
});

afterEach(() => temp.remove());

function open(extra: Parameters<typeof ApprovalStore.open>[0] = {}): Promise<ApprovalStore> {
  return ApprovalStore.open({ path: file, ...extra });
}

function readJson(p: string): Record<string, Record<string, { hash: string; status: string }>> {
  return JSON.parse(fs.readFileSync(p, 'utf8')) as Record<
    string,
    Record<string, { hash: string; status: string }>
  >;
}

describe('ApprovalStore states', { timeout: 30_000 }, () => {
  it('starts pending when there is no file, and creates none by reading', async () => {
    const store = await open();
    assert.equal(store.getState(ws, 'fs', FS), 'pending');
    assert.equal(fs.existsSync(file), false);
    assert.deepEqual(store.errors, []);
  });

  it('persists approve and reject across a reopen', async () => {
    const first = await open();
    await first.approve(ws, 'fs', approvalHashOf(FS));
    await first.reject(ws, 'web', approvalHashOf(WEB));
    assert.equal(first.getState(ws, 'fs', FS), 'approved');
    assert.equal(first.getState(ws, 'web', WEB), 'rejected');

    const second = await open();
    assert.equal(second.getState(ws, 'fs', FS), 'approved');
    assert.equal(second.getState(ws, 'web', WEB), 'rejected');
    assert.deepEqual(readJson(file), {
      [ws]: {
        fs: { hash: approvalHashOf(FS), status: 'approved' },
        web: { hash: approvalHashOf(WEB), status: 'rejected' },
      },
    });
  });

  it('makes an edited server pending again after approve or reject; editing back restores it', async () => {
    const store = await open();
    await store.approve(ws, 'fs', approvalHashOf(FS));
    await store.reject(ws, 'web', approvalHashOf(WEB));
    const fsEdited = { ...FS, args: ['fs.js', '--write'] };
    const webEdited = { ...WEB, headers: { Authorization: 'Bearer x' } };
    assert.equal(store.getState(ws, 'fs', fsEdited), 'pending');
    assert.equal(store.getState(ws, 'web', webEdited), 'pending');
    assert.equal(store.getState(ws, 'fs', FS), 'approved');
    assert.equal(store.getState(ws, 'web', WEB), 'rejected');
  });

  it('ignores edits outside the approval hash (description)', async () => {
    const store = await open();
    await store.approve(ws, 'fs', approvalHashOf(FS));
    assert.equal(store.getState(ws, 'fs', { ...FS, description: 'files' }), 'approved');
  });

  it('lets a later decision replace an earlier one', async () => {
    const store = await open();
    await store.approve(ws, 'fs', approvalHashOf(FS));
    await store.reject(ws, 'fs', approvalHashOf(FS));
    assert.equal(store.getState(ws, 'fs', FS), 'rejected');
    assert.equal((await open()).getState(ws, 'fs', FS), 'rejected');
  });

  it('keeps decisions per project root', async () => {
    const other = path.join(tmp, 'other');
    fs.mkdirSync(other);
    const store = await open();
    await store.approve(ws, 'fs', approvalHashOf(FS));
    await store.reject(other, 'fs', approvalHashOf(FS));
    assert.equal(store.getState(ws, 'fs', FS), 'approved');
    assert.equal(store.getState(other, 'fs', FS), 'rejected');
    assert.equal(store.getState(path.join(tmp, 'third'), 'fs', FS), 'pending');
  });

  it('shares decisions between a symlinked root and its realpath, stored under the realpath', async () => {
    const link = path.join(tmp, 'ws-link');
    fs.symlinkSync(ws, link);
    const store = await open();
    await store.approve(link, 'fs', approvalHashOf(FS));
    await store.reject(ws, 'web', approvalHashOf(WEB));
    assert.equal(store.getState(ws, 'fs', FS), 'approved');
    assert.equal(store.getState(link, 'web', WEB), 'rejected');
    assert.deepEqual(Object.keys(readJson(file)), [ws]);
  });

  it('never drops a record: a server that left the config and came back keeps its decision', async () => {
    const store = await open();
    await store.approve(ws, 'fs', approvalHashOf(FS));
    // fs leaves the config; other decisions are written meanwhile.
    await store.approve(ws, 'web', approvalHashOf(WEB));
    await store.reject(path.join(tmp, 'elsewhere'), 'x', approvalHashOf(WEB));
    const reopened = await open();
    assert.equal(reopened.getState(ws, 'fs', FS), 'approved');
    assert.equal(readJson(file)[ws]?.fs?.status, 'approved');
  });

  it('treats "__proto__", "constructor" and "toString" as ordinary server names', async () => {
    const store = await open();
    await store.approve(ws, '__proto__', approvalHashOf(FS));
    await store.reject(ws, 'constructor', approvalHashOf(FS));
    assert.equal(store.getState(ws, 'toString', FS), 'pending');
    await store.approve(ws, 'other', approvalHashOf(WEB));
    const reopened = await open();
    assert.equal(reopened.getState(ws, '__proto__', FS), 'approved');
    assert.equal(reopened.getState(ws, 'constructor', FS), 'rejected');
    assert.equal(reopened.getState(ws, 'hasOwnProperty', FS), 'pending');
    const onDisk = readJson(file)[ws];
    assert.ok(Object.hasOwn(onDisk, '__proto__'));
    assert.equal(({} as Record<string, unknown>).status, undefined);
  });

  it('serves reads from memory until reload() picks up another process’s decision', async () => {
    const reader = await open();
    const writer = await open();
    await writer.approve(ws, 'fs', approvalHashOf(FS));
    assert.equal(reader.getState(ws, 'fs', FS), 'pending');
    await reader.reload();
    assert.equal(reader.getState(ws, 'fs', FS), 'approved');
  });

  it('bases each write on the file, not on its own cache', async () => {
    const a = await open();
    const b = await open();
    await a.approve(ws, 'fs', approvalHashOf(FS));
    // b never reloaded, yet its write keeps a's decision.
    await b.approve(ws, 'web', approvalHashOf(WEB));
    assert.equal(b.getState(ws, 'fs', FS), 'approved');
    const fresh = await open();
    assert.equal(fresh.getState(ws, 'fs', FS), 'approved');
    assert.equal(fresh.getState(ws, 'web', WEB), 'approved');
  });

  it('keeps every decision of many concurrent calls on one store', async () => {
    const store = await open();
    const names = Array.from({ length: 15 }, (_, i) => `s${i}`);
    await Promise.all(names.map((n) => store.approve(ws, n, approvalHashOf(FS))));
    const reopened = await open();
    for (const n of names) assert.equal(reopened.getState(ws, n, FS), 'approved', n);
  });

  it('returns the record it wrote and exposes it through recordOf', async () => {
    const store = await open();
    const { record, displaced } = await store.reject(ws, 'fs', approvalHashOf(FS));
    assert.deepEqual(record, { hash: approvalHashOf(FS), status: 'rejected' });
    assert.equal(displaced, undefined);
    assert.deepEqual(store.recordOf(ws, 'fs'), record);
    assert.equal(store.recordOf(ws, 'web'), undefined);
  });

  it('reads hand-edited files with comments and trailing commas', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(
      file,
      `// decided by hand\n{ ${JSON.stringify(ws)}: { "fs": { "hash": "${approvalHashOf(FS)}", "status": "approved", }, }, }\n`,
    );
    const store = await open();
    assert.equal(store.getState(ws, 'fs', FS), 'approved');
    assert.deepEqual(store.errors, []);
  });
});

describe('ApprovalStore file handling', { timeout: 30_000 }, () => {
  it('writes the file with mode 0600 and creates its folder with mode 0700', async () => {
    const store = await open();
    await store.approve(ws, 'fs', approvalHashOf(FS));
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    // No temporary or lock files are left next to it.
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['mcpApprovals.json']);
  });

  it('tightens the mode of an existing, looser file when it rewrites it', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{}', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const store = await open();
    await store.approve(ws, 'fs', approvalHashOf(FS));
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  it('uses $HOME/.qwen/mcpApprovals.json by default and MCPCTL_APPROVALS_PATH when set', async () => {
    const home = path.join(tmp, 'home');
    const byHome = await ApprovalStore.open({ env: {}, home });
    assert.equal(byHome.path, path.join(home, '.qwen', 'mcpApprovals.json'));
    await byHome.approve(ws, 'fs', approvalHashOf(FS));
    assert.equal(readJson(byHome.path)[ws]?.fs?.status, 'approved');

    const override = path.join(tmp, 'custom.json');
    const byEnv = await ApprovalStore.open({ env: { MCPCTL_APPROVALS_PATH: override }, home });
    assert.equal(byEnv.path, override);
    assert.equal(byEnv.getState(ws, 'fs', FS), 'pending');
  });

  it('moves a corrupt file aside, reports it clearly and continues with no decisions', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const corrupt = `{ ${JSON.stringify(ws)}: { "fs": { "hash": "${approvalHashOf(FS)}", "status": "approved" } } oops`;
    fs.writeFileSync(file, corrupt);
    const seen: ApprovalStoreError[] = [];
    const store = await open({
      now: () => new Date('2030-01-02T03:04:05.678Z'),
      onError: (e) => seen.push(e),
    });
    const aside = `${file}.corrupt-2030-01-02T03-04-05.678Z`;

    assert.equal(store.getState(ws, 'fs', FS), 'pending');
    assert.equal(fs.existsSync(file), false);
    assert.equal(fs.readFileSync(aside, 'utf8'), corrupt);
    const error = store.lastError;
    assert.ok(error);
    assert.equal(error.code, 'corrupt');
    assert.equal(error.file, file);
    assert.equal(error.movedTo, aside);
    assert.equal(
      error.message,
      `approvals file ${file} is corrupt (InvalidSymbol at line 1, column ${corrupt.indexOf('oops') + 1}); moved it to ${aside} and continuing with no saved decisions, so every project and workspace server is pending approval until approved again (merge the moved file back by hand to restore its decisions)`,
    );
    assert.deepEqual(seen, [error]);

    // New decisions go to a fresh file; the quarantined copy is left alone.
    await store.approve(ws, 'web', approvalHashOf(WEB));
    assert.deepEqual(Object.keys(readJson(file)[ws]), ['web']);
    assert.equal(fs.readFileSync(aside, 'utf8'), corrupt);
  });

  it('treats a file whose top is not an object as corrupt too', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify([{ [ws]: {} }]));
    const store = await open();
    assert.equal(store.lastError?.code, 'corrupt');
    assert.match(store.lastError?.message ?? '', /expected an object at the top, got an array/);
    assert.equal(fs.existsSync(file), false);
    assert.equal(
      fs.readdirSync(path.dirname(file)).filter((f) => f.includes('.corrupt-')).length,
      1,
    );
  });

  it('one malformed entry costs only itself: every other decision holds, it is reported and kept', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const other = path.join(tmp, 'other');
    const original = {
      [ws]: {
        fs: { hash: approvalHashOf(FS), status: 'approved' },
        bad: { hash: 'h', status: 'maybe' },
      },
      [other]: 'not an object',
    };
    fs.writeFileSync(file, JSON.stringify(original));
    const seen: ApprovalStoreError[] = [];
    const store = await open({ onError: (e) => seen.push(e) });
    assert.equal(store.getState(ws, 'fs', FS), 'approved');
    assert.deepEqual(
      seen.map((e) => e.code),
      ['invalid-entries'],
    );
    assert.match(
      seen[0]?.message ?? '',
      /"bad"\.status: expected "approved" or "rejected", got "maybe"/,
    );
    assert.deepEqual(
      store.invalidEntries(ws).map((e) => e.name),
      ['bad'],
    );
    assert.match(store.invalidEntries(ws)[0]?.message ?? '', new RegExp(`approvals file ${file}`));
    assert.equal(store.invalidEntries(other)[0]?.name, undefined);
    assert.equal(
      fs.readdirSync(path.dirname(file)).filter((f) => f.includes('.corrupt-')).length,
      0,
    );

    // A re-read of the same file reports nothing new.
    await store.reload();
    assert.equal(seen.length, 1);

    // Another decision keeps the malformed entries as they were.
    const saved = await store.approve(ws, 'web', approvalHashOf(WEB));
    assert.equal(saved.displaced, undefined);
    const after = readJson(file) as unknown as Record<string, Record<string, unknown>>;
    assert.deepEqual(after[ws]?.bad, { hash: 'h', status: 'maybe' });
    assert.equal(after[other], 'not an object');
    assert.equal(seen.length, 1);
  });

  it('a decision in the place of a malformed entry keeps that entry aside and says so', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const other = path.join(tmp, 'other');
    fs.writeFileSync(file, JSON.stringify({ [ws]: { fs: 7 }, [other]: ['x'] }));
    const now = () => new Date('2030-01-02T03:04:05.678Z');
    const store = await open({ now });
    const saved = await store.approve(ws, 'fs', approvalHashOf(FS));
    const aside = `${file}.corrupt-2030-01-02T03-04-05.678Z`;
    assert.equal(saved.displaced?.movedTo, aside);
    assert.match(
      saved.displaced?.message ?? '',
      /replaced a malformed entry .*"fs": expected an object/,
    );
    assert.deepEqual(readJson(aside), { [ws]: { fs: 7 } });
    assert.equal(store.getState(ws, 'fs', FS), 'approved');
    // A whole malformed project value is kept aside the same way, in a file of its own.
    const whole = await store.approve(other, 'x', approvalHashOf(FS));
    assert.equal(whole.displaced?.movedTo, `${aside}-1`);
    assert.deepEqual(readJson(`${aside}-1`), { [other]: ['x'] });
    assert.deepEqual(store.allInvalidEntries, []);
  });

  it('does not overwrite an earlier quarantined copy', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const now = () => new Date('2030-01-01T00:00:00.000Z');
    fs.writeFileSync(file, 'first {');
    await open({ now });
    fs.writeFileSync(file, 'second {');
    const store = await open({ now });
    const base = `${file}.corrupt-2030-01-01T00-00-00.000Z`;
    assert.equal(fs.readFileSync(base, 'utf8'), 'first {');
    assert.equal(fs.readFileSync(`${base}-1`, 'utf8'), 'second {');
    assert.equal(store.lastError?.movedTo, `${base}-1`);
  });

  it('moves aside a file that became corrupt after open when the next write finds it', async () => {
    const store = await open();
    await store.approve(ws, 'fs', approvalHashOf(FS));
    fs.writeFileSync(file, '{ not json');
    await store.approve(ws, 'web', approvalHashOf(WEB));
    assert.equal(store.lastError?.code, 'corrupt');
    assert.deepEqual(Object.keys(readJson(file)[ws]), ['web']);
    // Memory follows the disk: the decision that lived only in the corrupt file is gone.
    assert.equal(store.getState(ws, 'fs', FS), 'pending');
  });

  it('never writes over a file it cannot read', async () => {
    // A directory where the file should be: unreadable as a file, whoever runs the test.
    fs.mkdirSync(file, { recursive: true });
    const store = await open();
    assert.equal(store.getState(ws, 'fs', FS), 'pending');
    assert.equal(store.lastError?.code, 'unreadable');
    assert.ok(
      store.lastError?.message.startsWith(`cannot read approvals file ${file} (it is a directory`),
    );
    await assert.rejects(store.approve(ws, 'fs', approvalHashOf(FS)), (e: ApprovalStoreError) => {
      assert.equal(e.code, 'unreadable');
      return true;
    });
    assert.ok(fs.statSync(file).isDirectory());
    assert.equal(store.getState(ws, 'fs', FS), 'pending');
  });

  it('never reads or writes through a symbolic link, and says why and how to fix it', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const target = path.join(tmp, 'precious.json');
    const original = JSON.stringify({
      [ws]: { fs: { hash: approvalHashOf(FS), status: 'approved' } },
    });
    fs.writeFileSync(target, original);
    fs.symlinkSync(target, file);
    const store = await open();
    assert.equal(store.getState(ws, 'fs', FS), 'pending', 'nothing is read through the link');
    assert.equal(store.lastError?.code, 'unreadable');
    assert.ok(
      store.lastError?.message.startsWith(
        `cannot read approvals file ${file} (it is a symbolic link to ${target};`,
      ),
    );
    assert.match(store.lastError?.message ?? '', new RegExp(`MCPCTL_APPROVALS_PATH=${target}`));
    await assert.rejects(store.approve(ws, 'web', approvalHashOf(WEB)), (e: ApprovalStoreError) => {
      assert.equal(e.code, 'unreadable');
      return true;
    });
    assert.equal(fs.readFileSync(target, 'utf8'), original, 'the target is untouched');
    assert.ok(fs.lstatSync(file).isSymbolicLink());
    assert.deepEqual(
      fs.readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp')),
      [],
      'no temporary file left',
    );
  });

  it('does not block on a FIFO in place of the file', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    execFileSync('mkfifo', [file]);
    const store = await open();
    assert.equal(store.lastError?.code, 'unreadable');
    assert.match(store.lastError?.message ?? '', /not a regular file/);
    await assert.rejects(store.approve(ws, 'fs', approvalHashOf(FS)));
    assert.ok(fs.lstatSync(file).isFIFO());
  });

  it('a link planted as the lock makes the write fail; nothing is written through it', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const target = path.join(tmp, 'elsewhere');
    fs.mkdirSync(target);
    fs.symlinkSync(target, `${file}.lock`);
    const store = await open({ lockTimeoutMs: 300 });
    await assert.rejects(store.approve(ws, 'fs', approvalHashOf(FS)), (e: ApprovalStoreError) => {
      assert.equal(e.code, 'lock-failed');
      return true;
    });
    assert.deepEqual(fs.readdirSync(target), []);
    assert.ok(fs.lstatSync(`${file}.lock`).isSymbolicLink());
    assert.equal(fs.existsSync(file), false);
  });

  it('fails a write with a clear error when another holder keeps the lock', async () => {
    const store = await open({ lockTimeoutMs: 300 });
    fs.mkdirSync(`${file}.lock`, { recursive: true });
    await assert.rejects(store.approve(ws, 'fs', approvalHashOf(FS)), (e: ApprovalStoreError) => {
      assert.equal(e.code, 'lock-failed');
      assert.ok(e.message.startsWith(`could not lock approvals file ${file} (`));
      assert.ok(e.message.includes('"approved" for server fs was not saved'));
      assert.ok(e.message.includes(`remove ${file}.lock`));
      return true;
    });
    assert.equal(store.getState(ws, 'fs', FS), 'pending');
    assert.equal(fs.existsSync(file), false);
    // Once the holder is gone, the next write goes through.
    fs.rmdirSync(`${file}.lock`);
    await store.approve(ws, 'fs', approvalHashOf(FS));
    assert.equal(store.getState(ws, 'fs', FS), 'approved');
  });
});
