import assert from 'node:assert/strict';
import { symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { makeFifo, releaseReaders } from '../../testing/fifo.js';
import { tempDir } from '../../testing/temp-dir.js';
import { checkEntry } from './entries.js';
import { MAX_AGENT_FILE_BYTES, readAgentFile } from './read-files.js';

describe('setup reads an agent file', () => {
  const dir = tempDir('mcpctl-setup-read-');
  after(() => dir.remove());

  it('reads a regular file with its mode; a missing one is absent', async () => {
    const file = path.join(dir.path, 'ok.json');
    writeFileSync(file, '{}\n', { mode: 0o640 });
    assert.deepEqual(await readAgentFile(file), {
      kind: 'text',
      path: file,
      text: '{}\n',
      mode: 0o640,
    });
    assert.equal((await readAgentFile(path.join(dir.path, 'none', 'x.json'))).kind, 'absent');
  });

  it('refuses, unread, a link, a FIFO, a folder, a huge file and bytes that are not UTF-8', async () => {
    const target = path.join(dir.path, 'target.json');
    writeFileSync(target, '{}');
    const link = path.join(dir.path, 'link.json');
    symlinkSync(target, link);
    const fifo = path.join(dir.path, 'fifo.json');
    makeFifo(fifo);
    const huge = path.join(dir.path, 'huge.json');
    writeFileSync(huge, '');
    truncateSync(huge, MAX_AGENT_FILE_BYTES + 1); // sparse: no disk used
    const latin = path.join(dir.path, 'latin.json');
    writeFileSync(latin, Buffer.from([0x7b, 0xe9, 0x7d]));
    try {
      for (const [file, words] of [
        [link, /symbolic link/],
        [fifo, /not a regular file/],
        [dir.path, /not a regular file/],
        [huge, /more than the/],
        [latin, /not UTF-8/],
      ] as const) {
        const read = await readAgentFile(file);
        assert.equal(read.kind, 'refused', file);
        assert.match(read.kind === 'refused' ? read.problem : '', words);
      }
    } finally {
      releaseReaders([fifo]);
    }
  });

  it('refuses a server name with control characters, quoting no value', () => {
    const problem = checkEntry('/f.json', 'mcpServers."x"', '\u001b[31mx', {
      command: 'c',
      env: { K: 'sk-secret' },
    });
    assert.ok(problem !== undefined);
    assert.ok(!problem.includes('\u001b'), problem);
    assert.ok(!problem.includes('sk-secret'), problem);
  });
});
