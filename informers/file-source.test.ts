import assert from 'node:assert/strict';
import { mkdir, rename, rm, symlink, truncate, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { SourceContent } from '../api/index.js';
import {
  createFileSource,
  evaluateRead,
  type FileSnapshot,
  type FileSource,
} from './file-source.js';
import { SETTINGS_KIND } from './source-kinds.js';
import { tempDir } from '../testing/temp-dir.js';
import { atomicWrite, Recorder, sleep, writeJson } from './testing/support.js';
import { until } from '../testing/until.js';

const DEBOUNCE = 80;
/** Long enough for a watcher event plus the debounce to have come and gone. */
const QUIET = DEBOUNCE + 300;

interface Harness {
  dir: string;
  file: string;
  source: FileSource<SourceContent>;
  changes: Recorder<FileSnapshot<SourceContent>>;
  reads: Recorder<{ snapshot: FileSnapshot<SourceContent>; changed: boolean }>;
}

async function harness(
  t: TestContext,
  relFile = '.qwen/settings.json',
  debounceMs = DEBOUNCE,
  prepare?: (file: string) => Promise<void>,
): Promise<Harness> {
  const { path: dir, remove: cleanup } = tempDir('mcpctl-informers-');
  const file = path.join(dir, relFile);
  if (prepare) await prepare(file);
  const source = createFileSource({ ...SETTINGS_KIND, file, debounceMs });
  const changes = new Recorder<FileSnapshot<SourceContent>>();
  const reads = new Recorder<{ snapshot: FileSnapshot<SourceContent>; changed: boolean }>();
  source.onChange(changes.push);
  source.onRead((snapshot, changed) => reads.push({ snapshot, changed }));
  t.after(async () => {
    await source.close();
    cleanup();
  });
  await source.start();
  return { dir, file, source, changes, reads };
}

const servers = (s: FileSnapshot<SourceContent>): string[] =>
  Object.keys(s.value.mcpServers ?? {}).sort();

const settingsWith = (names: string[], extra: Record<string, unknown> = {}) => ({
  ...extra,
  mcpServers: Object.fromEntries(names.map((n) => [n, { command: 'node', args: [n] }])),
});

async function mkdirFor(file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
}

test('create, modify, delete and re-create each emit once', { timeout: 15000 }, async (t) => {
  const h = await harness(t, '.qwen/settings.json', DEBOUNCE, mkdirFor);
  assert.equal(h.source.snapshot().exists, false);
  assert.deepEqual(servers(h.source.snapshot()), []);

  await writeJson(h.file, settingsWith(['a']));
  const created = await h.changes.nth(1, 'create');
  assert.equal(created.exists, true);
  assert.deepEqual(servers(created), ['a']);

  await writeJson(h.file, settingsWith(['a', 'b']));
  assert.deepEqual(servers(await h.changes.nth(2, 'modify')), ['a', 'b']);

  await unlink(h.file);
  const deleted = await h.changes.nth(3, 'delete');
  assert.equal(deleted.exists, false);
  assert.deepEqual(deleted.errors, [], 'a deleted file is an empty source, not an error');
  assert.deepEqual(servers(deleted), []);

  await writeJson(h.file, settingsWith(['c']));
  assert.deepEqual(servers(await h.changes.nth(4, 're-create')), ['c']);
  await sleep(QUIET);
  assert.equal(h.changes.count, 4);
});

test('atomic rename-over save emits exactly one change', { timeout: 10000 }, async (t) => {
  const h = await harness(t, '.qwen/settings.json', DEBOUNCE, async (f) => {
    await mkdirFor(f);
    await writeJson(f, settingsWith(['a']));
  });
  assert.deepEqual(servers(h.source.snapshot()), ['a']);
  await atomicWrite(h.file, JSON.stringify(settingsWith(['a', 'renamed'])));
  assert.deepEqual(servers(await h.changes.nth(1, 'rename-over')), ['a', 'renamed']);
  await sleep(QUIET);
  assert.equal(h.changes.count, 1);
  // And the watch survives the inode swap.
  await writeJson(h.file, settingsWith(['after']));
  assert.deepEqual(servers(await h.changes.nth(2, 'edit after rename')), ['after']);
});

test(
  'truncate-then-write within the debounce is one change, never empty',
  { timeout: 10000 },
  async (t) => {
    const h = await harness(t, '.qwen/settings.json', DEBOUNCE, async (f) => {
      await mkdirFor(f);
      await writeJson(f, settingsWith(['a']));
    });
    await truncate(h.file, 0);
    await sleep(20);
    await writeJson(h.file, settingsWith(['b']));
    assert.deepEqual(servers(await h.changes.nth(1, 'the write')), ['b']);
    await sleep(QUIET);
    assert.equal(h.changes.count, 1);
    assert.ok(
      h.reads.events.every((r) => servers(r.snapshot).join() !== ''),
      'no empty read',
    );
  },
);

test('a burst of 20 saves in 100 ms yields one change', { timeout: 10000 }, async (t) => {
  const h = await harness(t, '.qwen/settings.json', 200, async (f) => {
    await mkdirFor(f);
    await writeJson(f, settingsWith(['start']));
  });
  for (let i = 0; i < 20; i++) {
    await writeJson(h.file, settingsWith([`s${i}`]));
    await sleep(5);
  }
  assert.deepEqual(servers(await h.changes.nth(1, 'the burst')), ['s19']);
  await sleep(500);
  assert.equal(h.changes.count, 1);
  assert.equal(h.reads.count, 2, 'the start read and one read for the burst');
});

test(
  'format-only, key-order and comment-only edits emit nothing',
  { timeout: 10000 },
  async (t) => {
    const h = await harness(t, '.qwen/settings.json', DEBOUNCE, async (f) => {
      await mkdirFor(f);
      await writeFile(
        f,
        '{"ui":{"theme":"dark"},"mcpServers":{"fs":{"command":"node","args":["a"]}}}',
      );
    });
    const edits = [
      '{\n  "ui": { "theme": "dark" },\n  "mcpServers": {\n    "fs": { "command": "node", "args": ["a"] }\n  }\n}\n',
      '{"mcpServers":{"fs":{"args":["a"],"command":"node"}},"ui":{"theme":"dark"}}',
      '// my settings\n{"mcpServers":{"fs":{"command":"node","args":["a"]}}, /* theme */ "ui":{"theme":"dark"},}',
    ];
    for (const [i, text] of edits.entries()) {
      await writeFile(h.file, text);
      const read = await h.reads.nth(i + 2, `read of edit ${i}`);
      assert.equal(read.changed, false, `edit ${i} must not emit`);
    }
    assert.equal(h.changes.count, 0);
  },
);

test(
  'restart-only keys emit nothing but are taken in; hot keys emit',
  { timeout: 10000 },
  async (t) => {
    const h = await harness(t, '.qwen/settings.json', DEBOUNCE, async (f) => {
      await mkdirFor(f);
      await writeJson(f, settingsWith(['a'], { mcp: { serverCommand: 'one' } }));
    });
    await writeJson(h.file, settingsWith(['a'], { mcp: { serverCommand: 'two' } }));
    const read = await h.reads.nth(2, 'read of the restart-only edit');
    assert.equal(read.changed, false);
    assert.equal(h.source.snapshot().value.mcp?.serverCommand, 'two');
    await writeJson(
      h.file,
      settingsWith(['a'], { mcp: { serverCommand: 'two', excluded: ['a'] } }),
    );
    const change = await h.changes.nth(1, 'mcp.excluded edit');
    assert.deepEqual(change.value.mcp?.excluded, ['a']);
    assert.equal(h.changes.count, 1);
  },
);

test(
  'invalid JSON: error with line and column, last good kept, then recovers',
  { timeout: 10000 },
  async (t) => {
    const h = await harness(t, '.qwen/settings.json', DEBOUNCE, async (f) => {
      await mkdirFor(f);
      await writeJson(f, settingsWith(['good']));
    });
    await writeFile(
      h.file,
      '{\n  "mcpServers": {\n    "x": { "command": "node" }\n    "y": {}\n  }\n}\n',
    );
    const broken = await h.changes.nth(1, 'the broken save');
    assert.equal(broken.errors.length, 1);
    assert.equal(broken.errors[0]?.file, h.file);
    assert.equal(broken.errors[0]?.line, 4);
    assert.equal(broken.errors[0]?.column, 5);
    assert.match(broken.errors[0]?.message ?? '', /comma/);
    assert.deepEqual(servers(broken), ['good'], 'last good content stays in force');

    // Still broken, but elsewhere: the error moves, still one change.
    await writeFile(
      h.file,
      '{\n  "mcpServers": {\n    "x": { "command": "node", "args": "a b" }\n  }\n}\n',
    );
    const invalid = await h.changes.nth(2, 'the invalid save');
    assert.equal(invalid.errors[0]?.line, 3);
    assert.match(
      invalid.errors[0]?.message ?? '',
      /mcpServers\.x\.args: expected an array of strings/,
    );
    assert.deepEqual(servers(invalid), ['good']);

    await writeJson(h.file, settingsWith(['fixed']));
    const fixed = await h.changes.nth(3, 'the fix');
    assert.deepEqual(fixed.errors, []);
    assert.deepEqual(servers(fixed), ['fixed']);
  },
);

test('files that only share a prefix trigger nothing', { timeout: 10000 }, async (t) => {
  const h = await harness(t, '.qwen/settings.json', DEBOUNCE, async (f) => {
    await mkdirFor(f);
    await writeJson(f, settingsWith(['a']));
  });
  const d = path.dirname(h.file);
  for (const name of [
    'settings.json.bak',
    'settings.json~',
    '.settings.json.swp',
    'settings.jsonc',
  ]) {
    await writeJson(path.join(d, name), settingsWith(['nope']));
  }
  await rm(path.join(d, 'settings.json~'));
  await sleep(QUIET);
  assert.equal(h.reads.count, 1, 'only the start read');
  // The watcher is alive all the same.
  await writeJson(h.file, settingsWith(['b']));
  assert.deepEqual(servers(await h.changes.nth(1, 'sentinel edit')), ['b']);
});

test('directories created after start, deleted and re-created', { timeout: 15000 }, async (t) => {
  const h = await harness(t, 'ws/.qwen/settings.json');
  assert.equal(h.source.snapshot().exists, false);
  await mkdir(path.dirname(h.file), { recursive: true });
  await writeJson(h.file, settingsWith(['a']));
  assert.deepEqual(servers(await h.changes.nth(1, 'file in new directories')), ['a']);
  await writeJson(h.file, settingsWith(['b']));
  assert.deepEqual(servers(await h.changes.nth(2, 'edit in new directories')), ['b']);

  await rm(path.dirname(h.file), { recursive: true });
  const gone = await h.changes.nth(3, 'directory deleted');
  assert.equal(gone.exists, false);
  await mkdir(path.dirname(h.file));
  await writeJson(h.file, settingsWith(['c']));
  assert.deepEqual(servers(await h.changes.nth(4, 'directory re-created')), ['c']);
  await writeJson(h.file, settingsWith(['d']));
  assert.deepEqual(servers(await h.changes.nth(5, 'edit after re-creation')), ['d']);
});

test('a 5 MiB file is refused unread; last good kept', { timeout: 10000 }, async (t) => {
  const h = await harness(t, '.qwen/settings.json', DEBOUNCE, async (f) => {
    await mkdirFor(f);
    await writeJson(f, settingsWith(['a']));
  });
  const big = JSON.stringify({ ...settingsWith(['huge']), pad: 'x'.repeat(5 * 1024 * 1024) });
  await writeFile(h.file, big);
  const refused = await h.changes.nth(1, 'the big save');
  assert.equal(refused.errors.length, 1);
  assert.equal(refused.errors[0]?.line, 0);
  assert.match(refused.errors[0]?.message ?? '', /5\.0 MiB, larger than the 4\.0 MiB limit/);
  assert.deepEqual(servers(refused), ['a']);
});

test(
  'a settings file symlinked into a dotfiles folder follows its target',
  { timeout: 10000 },
  async (t) => {
    const h = await harness(t, 'home/.qwen/settings.json', DEBOUNCE, async (f) => {
      const dotfiles = path.join(path.dirname(f), '..', '..', 'dotfiles');
      await mkdir(dotfiles, { recursive: true });
      await mkdirFor(f);
      await writeJson(path.join(dotfiles, 'settings.json'), settingsWith(['a']));
      await symlink(path.join(dotfiles, 'settings.json'), f);
    });
    assert.deepEqual(servers(h.source.snapshot()), ['a']);
    const target = path.join(h.dir, 'dotfiles', 'settings.json');
    await writeJson(target, settingsWith(['in-place']));
    assert.deepEqual(servers(await h.changes.nth(1, 'edit of the target')), ['in-place']);
    await writeJson(`${target}.tmp`, settingsWith(['renamed']));
    await rename(`${target}.tmp`, target);
    assert.deepEqual(servers(await h.changes.nth(2, 'rename-over of the target')), ['renamed']);
  },
);

test(
  'peek reads now without committing; refresh commits and emits',
  { timeout: 10000 },
  async (t) => {
    const h = await harness(t, 'settings.json', 2000, async (f) => {
      await writeJson(f, settingsWith(['a']));
    });
    await writeJson(h.file, settingsWith(['b']));
    const peeked = await h.source.peek();
    assert.deepEqual(servers(peeked), ['b']);
    assert.deepEqual(servers(h.source.snapshot()), ['a'], 'peek commits nothing');
    assert.equal(h.changes.count, 0);
    const refreshed = await h.source.refresh();
    assert.deepEqual(servers(refreshed), ['b']);
    assert.equal(h.changes.count, 1);
    assert.deepEqual(servers(h.source.snapshot()), ['b']);
  },
);

test('evaluateRead: empty file, read error and missing file', { timeout: 5000 }, () => {
  const file = '/x/settings.json';
  const good: FileSnapshot<SourceContent> = {
    file,
    exists: true,
    document: { mcpServers: { a: { command: 'n' } } },
    value: { mcpServers: { a: { command: 'n' } } },
    errors: [],
    warnings: [],
  };
  const empty = evaluateRead(good, { kind: 'ok', text: '  // nothing\n' }, SETTINGS_KIND);
  assert.equal(empty.exists, true);
  assert.equal(empty.document, undefined);
  assert.deepEqual(empty.value, {});
  const denied = evaluateRead(good, { kind: 'error', message: 'permission denied' }, SETTINGS_KIND);
  assert.deepEqual(denied.value, good.value);
  assert.deepEqual(denied.errors, [{ file, line: 0, column: 0, message: 'permission denied' }]);
  const missing = evaluateRead(denied, { kind: 'missing' }, SETTINGS_KIND);
  assert.equal(missing.exists, false);
  assert.deepEqual(missing.errors, []);
  assert.deepEqual(missing.value, {});
});

test(
  'evaluateRead: an edit of one server keeps every other server config object',
  { timeout: 5000 },
  () => {
    const file = '/x/settings.json';
    const names = Array.from({ length: 30 }, (_, i) => `s${i}`);
    const text = JSON.stringify(settingsWith(names, { ui: { theme: 'light' } }), null, 2);
    const start: FileSnapshot<SourceContent> = {
      file,
      exists: false,
      document: undefined,
      value: {},
      errors: [],
      warnings: [],
    };
    const first = evaluateRead(start, { kind: 'ok', text }, SETTINGS_KIND);
    const edited = text.replace('"s7"\n', '"s7", "--v2"\n');
    // A broken save in between: keep-last-good, and the next good save still builds on it.
    const broken = evaluateRead(
      first,
      { kind: 'ok', text: edited.replace('{', '{{') },
      SETTINGS_KIND,
    );
    assert.equal(broken.errors.length, 1);
    assert.equal(broken.value, first.value);
    const second = evaluateRead(broken, { kind: 'ok', text: edited }, SETTINGS_KIND);
    assert.deepEqual(second.errors, []);
    const before = first.value.mcpServers ?? {};
    const after = second.value.mcpServers ?? {};
    assert.deepEqual(after.s7?.args, ['s7', '--v2']);
    assert.notEqual(after.s7, before.s7);
    for (const name of names.filter((n) => n !== 's7'))
      assert.equal(after[name], before[name], `${name} keeps its config object`);
    // Rewriting the same text changes nothing at all.
    const again = evaluateRead(second, { kind: 'ok', text: edited }, SETTINGS_KIND);
    assert.equal(again.document, second.document);
    assert.equal(again.value.mcpServers, second.value.mcpServers);
  },
);

test(
  'refresh() does not wait out the ceiling of a settle stuck on an incomplete file',
  { timeout: 15000 },
  async (t) => {
    // A ceiling of ten minutes: only the preemption can make refresh() answer in time.
    const h = await harness(t, '.qwen/settings.json', 600_000, async (f) => {
      await mkdirFor(f);
      await writeJson(f, settingsWith(['a']));
    });
    await writeFile(h.file, '{ "mcpServers": { "b": ');
    await sleep(300); // The watcher saw it; its settle now waits for the file to complete.
    const snapshot = await h.source.refresh();
    assert.equal(snapshot.errors.length > 0, true, 'the broken file is reported');
    assert.deepEqual(servers(snapshot), ['a'], 'the last good content is kept');
  },
);

test(
  'a save the watcher throttled away right after an apply is still applied',
  { timeout: 20000 },
  async (t) => {
    // At the defaults a save is applied ~40 ms after it lands; chokidar drops a change event
    // that follows the previous one within 50 ms. A second save in that gap has no event.
    const h = await harness(t, '.qwen/settings.json', 300, async (f) => {
      await mkdirFor(f);
      await writeJson(f, settingsWith(['start']));
    });
    for (const gap of [42, 46, 50, 54]) {
      await writeJson(h.file, settingsWith([`first${gap}`]));
      await sleep(gap);
      await writeJson(h.file, settingsWith([`second${gap}`]));
      await until(
        `the save ${gap} ms later to be applied`,
        () => servers(h.source.snapshot())[0] === `second${gap}`,
        { timeoutMs: 3000, intervalMs: 20 },
      );
    }
  },
);
