import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_VERSION, type McpServer } from '../../api/index.js';
import { UsageError } from '../errors.js';
import { MAX_TIMEOUT_MS, meets, parseFor, parseTarget, parseTimeout } from './wait.js';

function ready(
  status: 'True' | 'False',
  observedGeneration: number | undefined,
  generation: number,
): McpServer {
  return {
    apiVersion: API_VERSION,
    kind: 'McpServer',
    metadata: { name: 'fs', generation, creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: {},
    status: {
      restarts: 0,
      tools: [],
      prompts: [],
      conditions: [
        {
          type: 'Ready',
          status,
          reason: status === 'True' ? 'Connected' : 'ConnectFailed',
          message: '',
          lastTransitionTime: '2024-01-01T00:00:00Z',
          ...(observedGeneration === undefined ? {} : { observedGeneration }),
        },
      ],
    },
  };
}

describe('wait', () => {
  it('parses server/NAME and condition=TYPE[=value]', () => {
    assert.deepEqual(parseTarget('server/fs'), { kind: 'McpServer', name: 'fs' });
    assert.deepEqual(parseTarget('mcpservers/a::b'), { kind: 'McpServer', name: 'a::b' });
    assert.deepEqual(parseTarget('languageserver/ts'), { kind: 'LanguageServer', name: 'ts' });
    assert.deepEqual(parseTarget('lsp/ts'), { kind: 'LanguageServer', name: 'ts' });
    assert.throws(() => parseTarget('fs'), UsageError);
    assert.throws(() => parseTarget('pod/fs'), UsageError);
    assert.deepEqual(parseFor('condition=Ready'), { type: 'Ready', status: 'True' });
    assert.deepEqual(parseFor('condition=Ready=false'), { type: 'Ready', status: 'False' });
    assert.deepEqual(parseFor('condition=Admitted=TRUE'), { type: 'Admitted', status: 'True' });
    assert.throws(() => parseFor('Ready'), UsageError);
    assert.throws(() => parseFor('condition=Ready=maybe'), UsageError);
    assert.throws(() => parseFor('delete'), UsageError);
  });

  it('a condition observed for an older generation does not count (like kubectl)', () => {
    assert.equal(meets(ready('True', 2, 2), { type: 'Ready', status: 'True' }), true);
    assert.equal(meets(ready('True', 1, 2), { type: 'Ready', status: 'True' }), false);
    assert.equal(meets(ready('True', undefined, 2), { type: 'Ready', status: 'True' }), true);
    assert.equal(meets(ready('False', 2, 2), { type: 'Ready', status: 'False' }), true);
    assert.equal(meets(ready('True', 2, 2), { type: 'UpToDate', status: 'True' }), false);
  });

  it('refuses a condition type a server does not have, listing the ones it has', () => {
    assert.deepEqual(parseFor('condition=ready'), { type: 'Ready', status: 'True' });
    assert.deepEqual(parseFor('condition=uptodate=false'), { type: 'UpToDate', status: 'False' });
    assert.throws(
      () => parseFor('condition=Bogus'),
      (e: Error) =>
        e instanceof UsageError &&
        e.exitCode === 2 &&
        /no condition "Bogus"; use one of Admitted, Ready, UpToDate/.test(e.message),
    );
  });

  it('refuses a timeout no timer can hold, rather than timing out at once', () => {
    assert.equal(parseTimeout('30s'), 30_000);
    assert.equal(parseTimeout('0'), 0);
    assert.equal(parseTimeout(`${MAX_TIMEOUT_MS}ms`), MAX_TIMEOUT_MS);
    for (const text of ['99999999999s', `${MAX_TIMEOUT_MS + 1}ms`, `${'9'.repeat(400)}h`])
      assert.throws(
        () => parseTimeout(text),
        (e: Error) => e instanceof UsageError && /longer than the longest wait/.test(e.message),
        text,
      );
    assert.throws(() => parseTimeout('soon'), /must be a duration/);
  });
});
