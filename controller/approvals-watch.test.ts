import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { until } from '../testing/until.js';
import { watchApprovals } from './approvals-watch.js';
import { tempDir } from '../testing/temp-dir.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test(
  'a burst of writes is one re-read; nothing runs after close()',
  { timeout: 20_000 },
  async (t) => {
    const temp = tempDir('mcpctl-approvals-watch-');
    const dir = temp.path;
    t.after(temp.remove);
    // The file does not exist yet: creating it is a change like any other.
    const file = path.join(dir, 'approvals.json');
    const calls: string[] = [];
    const watch = await watchApprovals({
      file,
      debounceMs: 300,
      reload: async () => {
        calls.push('reload');
        await sleep(20);
      },
      reloaded: () => calls.push('reloaded'),
    });
    try {
      for (let i = 0; i < 5; i++) {
        writeFileSync(file, JSON.stringify({ i }));
        await sleep(10);
      }
      await until('the re-read and the sessions', () => calls.length >= 2, { timeoutMs: 10_000 });
      await sleep(700);
      assert.deepEqual(
        calls,
        ['reload', 'reloaded'],
        'one re-read for the burst, then the sessions',
      );
    } finally {
      await watch.close();
    }
    writeFileSync(file, JSON.stringify({ after: true }));
    await sleep(700);
    assert.deepEqual(calls, ['reload', 'reloaded'], 'closed: the write after close is not seen');
  },
);
