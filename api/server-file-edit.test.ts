import assert from 'node:assert/strict';
import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import {
  editServerFile,
  readServerFile,
  ServerFileError,
  type ServerFileProblem,
} from './server-file-edit.js';
import { addServer, removeServer } from './server-file-entries.js';

const T = { timeout: 10_000 };

const COMMENTED = `// my servers
{
  /* the everything server */
  "mcpServers": {
    "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] }, // keep
  },
  "other": [1, 2, 3],
}
`;

let dir: TempDir;
let file: string;

beforeEach(() => {
  dir = tempDir('mcpctl-server-file-');
  file = dir.file('mcpctl/mcp.json');
});
afterEach(() => dir.remove());

async function refused(
  promise: Promise<unknown>,
  problem: ServerFileProblem,
  pattern: RegExp,
): Promise<ServerFileError> {
  const error = await promise.then(
    () => assert.fail('expected a refusal'),
    (err: unknown) => err,
  );
  assert.ok(error instanceof ServerFileError, `not a ServerFileError: ${String(error)}`);
  assert.equal(error.problem, problem, error.message);
  assert.match(error.message, pattern);
  return error;
}

/** The file's bytes and stamps, to prove nothing changed. */
function fingerprint(at: string) {
  const s = statSync(at);
  return { text: readFileSync(at, 'utf8'), ino: s.ino, mtimeMs: s.mtimeMs, mode: s.mode };
}

describe('addServer', () => {
  it('makes the file 0600 in a folder made 0700, with a final newline', T, async () => {
    const out = await addServer(file, 'fs', { command: 'node', args: ['server.js'] });
    assert.equal(out.result, 'added');
    assert.equal(out.changed, true);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
    const text = readFileSync(file, 'utf8');
    assert.ok(text.endsWith('}\n'));
    assert.deepEqual(JSON.parse(text), {
      mcpServers: { fs: { command: 'node', args: ['server.js'] } },
    });
  });

  it('keeps comments, trailing commas, other keys and formatting byte for byte', T, async () => {
    mkdirSync(path.dirname(file));
    writeFileSync(file, COMMENTED);
    await addServer(file, 'mem', { type: 'stdio', command: 'npx', args: ['server-memory'] });
    const text = readFileSync(file, 'utf8');
    for (const kept of [
      '// my servers\n',
      '/* the everything server */',
      '"everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] }',
      '// keep',
      '"other": [1, 2, 3],\n}\n',
    ])
      assert.ok(text.includes(kept), `lost ${kept} in:\n${text}`);
    const read = await readServerFile(file);
    assert.deepEqual(Object.keys(read.content.mcpServers ?? {}).sort(), ['everything', 'mem']);
    // And it goes away the same way, leaving the original text.
    await removeServer(file, 'mem');
    assert.equal(readFileSync(file, 'utf8'), COMMENTED);
  });

  it('follows the file’s indentation (tabs) and keeps a BOM', T, async () => {
    mkdirSync(path.dirname(file));
    writeFileSync(file, '\ufeff{\n\t"mcpServers": {\n\t\t"a": { "command": "a" }\n\t}\n}\n');
    await addServer(file, 'b', { command: 'b' });
    const text = readFileSync(file, 'utf8');
    assert.ok(text.startsWith('\ufeff{'));
    assert.match(text, /\n\t\t"b": \{\n\t\t\t"command": "b"\n\t\t\}/);
  });

  it('is idempotent: the same entry again writes nothing', T, async () => {
    await addServer(file, 'fs', { command: 'node', env: { A: '1' } });
    const before = fingerprint(file);
    const again = await addServer(file, 'fs', { env: { A: '1' }, command: 'node' });
    assert.equal(again.result, 'unchanged');
    assert.equal(again.changed, false);
    assert.deepEqual(fingerprint(file), before);
  });

  it('refuses another entry of the same name unless replace, naming it', T, async () => {
    await addServer(file, 'fs', { command: 'node' });
    const before = fingerprint(file);
    const error = await refused(
      addServer(file, 'fs', { command: 'python' }),
      'exists',
      /mcpServers\."fs" already holds another server of that name \(replace it, or remove it first\); nothing was changed/,
    );
    assert.ok(error.message.startsWith(file));
    assert.deepEqual(fingerprint(file), before);
    const replaced = await addServer(file, 'fs', { command: 'python' }, { replace: true });
    assert.equal(replaced.result, 'replaced');
    assert.equal((await readServerFile(file)).content.mcpServers?.fs.command, 'python');
  });

  it('writes a workspace’s servers under projects, and validates its key', T, async () => {
    const ws = dir.path;
    await addServer(file, 'local', { command: 'node' }, { workspace: ws });
    const content = (await readServerFile(file)).content;
    assert.equal(content.mcpServers, undefined);
    assert.equal(content.projects?.[ws]?.local.command, 'node');
    const removed = await removeServer(file, 'local', { workspace: ws });
    assert.equal(removed.result, 'removed');
    // The emptied workspace part and `projects` go with it.
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {});
    await refused(
      addServer(file, 'x', { command: 'node' }, { workspace: 'relative/dir' }),
      'invalid',
      /projects\["relative\/dir"\]: a workspace key must be an absolute path/,
    );
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), {});
  });

  it('refuses a name with control characters, shown escaped, making no file', T, async () => {
    for (const name of ['evil\x1b[2Jname', 'a\nb', 'rtl\u202egpj', '', '  ']) {
      const error = await refused(addServer(file, name, { command: 'node' }), 'badName', /name/);
      assert.ok(!/[\x1b\n\u202e]/.test(error.message), error.message);
    }
    assert.throws(() => statSync(file), /ENOENT/);
  });

  it('refuses an entry that does not validate, with the line, changing nothing', T, async () => {
    mkdirSync(path.dirname(file));
    writeFileSync(file, COMMENTED);
    const before = fingerprint(file);
    const error = await refused(
      addServer(file, 'bad', { command: 'node', args: 'not-an-array --token=s3cret' }),
      'invalid',
      /mcp\.json:\d+:\d+: mcpServers\.bad\.args: expected an array of strings, got a string; nothing was changed/,
    );
    assert.ok(!error.message.includes('s3cret'));
    await refused(addServer(file, 'nothing', {}), 'invalid', /needs "command"/);
    assert.deepEqual(fingerprint(file), before);
  });

  it('refuses a file with a syntax error, naming file, line and column', T, async () => {
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{\n  "mcpServers": {\n    "a": { "command": "a" }\n    "b": {}\n  }\n}\n');
    const before = fingerprint(file);
    await refused(
      addServer(file, 'c', { command: 'c' }),
      'syntax',
      new RegExp(`^${file.replace(/[.]/g, '\\.')}:4:5: syntax error: expected ","`),
    );
    await refused(removeServer(file, 'a'), 'syntax', /nothing was changed/);
    assert.deepEqual(fingerprint(file), before);
  });

  it('refuses a file whose servers are not an object', T, async () => {
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{ "mcpServers": ["a"] }\n');
    const before = fingerprint(file);
    await refused(
      addServer(file, 'c', { command: 'c' }),
      'invalid',
      /:1:3: mcpServers: expected an object, got an array/,
    );
    writeFileSync(file, '[1]\n');
    await refused(addServer(file, 'c', { command: 'c' }), 'invalid', /top of the file/);
    writeFileSync(file, before.text);
    assert.equal(readFileSync(file, 'utf8'), before.text);
  });

  it('refuses a symbolic link, leaving it and what it points at alone', T, async () => {
    const target = dir.file('passwd');
    writeFileSync(target, 'root:x:0:0:root:/root:/bin/bash\n');
    mkdirSync(path.dirname(file));
    symlinkSync(target, file);
    await refused(addServer(file, 'x', { command: 'x' }), 'link', /is a symbolic link/);
    await refused(readServerFile(file), 'link', /symbolic link/);
    assert.equal(readFileSync(target, 'utf8'), 'root:x:0:0:root:/root:/bin/bash\n');
    // A dangling link too: nothing is made at its target.
    const dangling = dir.file('mcpctl/dangling.json');
    symlinkSync(dir.file('nowhere.json'), dangling);
    await refused(addServer(dangling, 'x', { command: 'x' }), 'link', /symbolic link/);
    assert.throws(() => statSync(dir.file('nowhere.json')), /ENOENT/);
  });

  it('refuses a FIFO or a directory without waiting on it', T, async () => {
    mkdirSync(path.dirname(file));
    makeFifo(file);
    try {
      await refused(addServer(file, 'x', { command: 'x' }), 'notRegular', /FIFO/);
      assert.ok(statSync(file).isFIFO());
    } finally {
      releaseReaders([file]);
    }
    const folder = dir.file('mcpctl/folder.json');
    mkdirSync(folder);
    await refused(removeServer(folder, 'x'), 'notRegular', /is a directory/);
  });

  it('refuses a huge file unread', T, async () => {
    mkdirSync(path.dirname(file));
    writeFileSync(file, `{"mcpServers": {}, "pad": "${'x'.repeat(5 * 1024 * 1024)}"}`);
    await refused(addServer(file, 'x', { command: 'x' }), 'tooLarge', /more than the/);
  });

  it('replaces the file atomically: a new inode, the old one untouched', T, async () => {
    await addServer(file, 'a', { command: 'a' });
    const keep = dir.file('old-inode');
    linkSync(file, keep);
    const before = readFileSync(keep, 'utf8');
    await addServer(file, 'b', { command: 'b' });
    assert.equal(readFileSync(keep, 'utf8'), before, 'the old inode was written in place');
    assert.notEqual(statSync(file).ino, statSync(keep).ino);
    // No temporary file is left beside it.
    assert.deepEqual(readdirSync(path.dirname(file)).sort(), ['mcp.json']);
  });

  it('leaves the file as it was when the write fails', T, async () => {
    await addServer(file, 'a', { command: 'a' });
    const before = readFileSync(file, 'utf8');
    chmodSync(path.dirname(file), 0o500);
    try {
      if (process.getuid?.() === 0) return; // root writes anywhere: nothing to prove here
      await refused(addServer(file, 'b', { command: 'b' }), 'unwritable', /cannot be written/);
    } finally {
      chmodSync(path.dirname(file), 0o700);
    }
    assert.equal(readFileSync(file, 'utf8'), before);
  });

  it('keeps a project file’s mode, and does not make its folder', T, async () => {
    const project = dir.file('.mcp.json');
    writeFileSync(project, '{}\n');
    chmodSync(project, 0o640);
    await addServer(project, 'a', { command: 'a' }, { private: false });
    assert.equal(statSync(project).mode & 0o777, 0o640);
    const fresh = dir.file('new/.mcp.json');
    await refused(
      addServer(fresh, 'a', { command: 'a' }, { private: false }),
      'unwritable',
      /cannot be written/,
    );
  });

  it('runs the edit again when another writer changed the file under it', T, async () => {
    await addServer(file, 'a', { command: 'a' });
    let runs = 0;
    await editServerFile(file, (editor) => {
      runs += 1;
      // Another program's save lands between our read and our write, once.
      if (runs === 1)
        writeFileSync(
          file,
          '{ "mcpServers": { "a": { "command": "a" }, "z": { "command": "z" } } }',
        );
      editor.set(['mcpServers', 'b'], { command: 'b' });
    });
    assert.equal(runs, 2);
    const names = Object.keys((await readServerFile(file)).content.mcpServers ?? {}).sort();
    assert.deepEqual(names, ['a', 'b', 'z']);
  });
});

describe('removeServer', () => {
  it('says absent without making a missing file', T, async () => {
    const out = await removeServer(file, 'nope');
    assert.equal(out.result, 'absent');
    assert.equal(out.changed, false);
    assert.throws(() => statSync(file), /ENOENT/);
  });

  it('removes one entry and keeps the others and the comments', T, async () => {
    mkdirSync(path.dirname(file));
    writeFileSync(file, COMMENTED);
    await addServer(file, 'b', { command: 'b' });
    await removeServer(file, 'everything');
    const text = readFileSync(file, 'utf8');
    assert.ok(text.includes('// my servers'));
    assert.ok(!text.includes('server-everything'));
    assert.deepEqual(Object.keys((await readServerFile(file)).content.mcpServers ?? {}), ['b']);
  });

  it('reads a `__proto__` server as a name like any other', T, async () => {
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{ "mcpServers": { "__proto__": { "command": "p" } } }\n');
    const content = (await readServerFile(file)).content;
    assert.equal(content.mcpServers?.['__proto__']?.command, 'p');
    assert.equal((await removeServer(file, '__proto__')).result, 'removed');
  });
});

describe('shape mcpJson', () => {
  it('validates only mcpServers, leaving every other key to its owner', T, async () => {
    const project = dir.file('.mcp.json');
    writeFileSync(project, '{ "projects": "theirs, not ours", "mcpServers": {} }\n');
    await refused(
      addServer(project, 'a', { command: 'a' }, { private: false }),
      'invalid',
      /projects: expected an object/,
    );
    const out = await addServer(
      project,
      'a',
      { command: 'a' },
      { private: false, shape: 'mcpJson' },
    );
    assert.equal(out.result, 'added');
    const read = await readServerFile(project, { shape: 'mcpJson' });
    assert.deepEqual(Object.keys(read.content.mcpServers ?? {}), ['a']);
    assert.equal(read.content.projects, undefined);
  });
});
