import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import {
  ANSWER_TIMEOUT_ENV,
  DEFAULT_ANSWER_TIMEOUT_MS,
  answerTimeoutMs,
} from './answer-timeout.js';
import { listenerPidOf, notAnsweringMessage, processStateOf } from './daemon-liveness.js';
import { UsageError } from './errors.js';
import { tempDir } from '../testing/temp-dir.js';

const temp = tempDir('mcpctl-live-');
const root = temp.path;
after(temp.remove);

describe('daemon liveness (issue 22, L1)', () => {
  it('finds the process listening at a socket path, and nothing where none listens', async () => {
    const p = path.join(root, 'd.sock');
    assert.equal(listenerPidOf(p), undefined);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(p, resolve));
    try {
      if (process.platform === 'linux') assert.equal(listenerPidOf(p), process.pid);
      assert.match(processStateOf(process.pid) ?? 'R', /^[RS]$/);
      const text = notAnsweringMessage(p, 'nothing within 1 s');
      assert.match(
        text,
        new RegExp(
          `the mcpctl daemon \\(pid ${process.pid}\\) at ${p} does not answer \\(nothing within 1 s\\); it may be stopped or busy`,
        ),
      );
      assert.match(text, new RegExp(`kill -CONT ${process.pid}`));
      assert.match(text, /mcpctl stop/);
      assert.match(text, new RegExp(ANSWER_TIMEOUT_ENV));
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('the answer timeout: flag, else environment, else 10 s; 0 is forever; junk is usage', () => {
    assert.equal(answerTimeoutMs(undefined, {}), DEFAULT_ANSWER_TIMEOUT_MS);
    assert.equal(answerTimeoutMs(undefined, { [ANSWER_TIMEOUT_ENV]: '2m' }), 120_000);
    assert.equal(answerTimeoutMs('500ms', { [ANSWER_TIMEOUT_ENV]: '2m' }), 500);
    assert.equal(answerTimeoutMs('0', {}), 0);
    assert.equal(
      answerTimeoutMs(undefined, { [ANSWER_TIMEOUT_ENV]: ' ' }),
      DEFAULT_ANSWER_TIMEOUT_MS,
    );
    assert.throws(
      () => answerTimeoutMs('soon', {}),
      (e: Error) => e instanceof UsageError && /--answer-timeout/.test(e.message),
    );
    assert.throws(
      () => answerTimeoutMs(undefined, { [ANSWER_TIMEOUT_ENV]: 'x' }),
      new RegExp(ANSWER_TIMEOUT_ENV),
    );
  });
});
