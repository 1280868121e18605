import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SourceStatus } from '../informers/types.js';
import { configWarnings } from './session-conditions.js';

const T = { timeout: 5000 };

function source(over: Partial<SourceStatus>): SourceStatus {
  return {
    file: '/ws/.qwen/settings.json',
    scope: 'workspace',
    holds: 'servers',
    exists: true,
    errors: [],
    warnings: [],
    inForce: true,
    ...over,
  };
}

describe('configWarnings', () => {
  it('one sentence per broken file: where, the fix, what is in force', T, () => {
    const error = {
      file: '/ws/.qwen/settings.json',
      line: 3,
      column: 5,
      message: 'syntax error: x',
    };
    const lsp = { file: '/ws/.lsp.json', line: 0, column: 0, message: 'not a regular file' };
    assert.deepEqual(
      configWarnings([
        source({ errors: [error] }),
        source({ file: '/ws/.mcp.json' }),
        source({ file: '/ws/.lsp.json', holds: 'languageServers', errors: [lsp], inForce: false }),
      ]),
      [
        '/ws/.qwen/settings.json:3:5: syntax error: x; until the file is fixed, its servers are as it was last read',
        '/ws/.lsp.json: not a regular file; the file was never read, so its language servers are missing until it is fixed',
      ],
    );
    assert.deepEqual(configWarnings([source({})]), [], 'nothing when every file is good');
  });
});
