import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from './errors.js';
import { parseObjectRef, refText } from './object-ref.js';

test('TYPE/NAME and bare names', { timeout: 5000 }, () => {
  assert.deepEqual(parseObjectRef('languageserver/ts'), { kind: 'LanguageServer', name: 'ts' });
  assert.deepEqual(parseObjectRef('lsp/ts'), { kind: 'LanguageServer', name: 'ts' });
  assert.deepEqual(parseObjectRef('Server/fs'), { kind: 'McpServer', name: 'fs' });
  assert.deepEqual(parseObjectRef('fs'), { name: 'fs' });
  // An unknown prefix is part of the name; a known one can still be written before it.
  assert.deepEqual(parseObjectRef('team/fs'), { name: 'team/fs' });
  assert.deepEqual(parseObjectRef('server/lsp/x'), { kind: 'McpServer', name: 'lsp/x' });
  assert.throws(() => parseObjectRef('server/'), UsageError);
  assert.throws(() => parseObjectRef(''), UsageError);
  assert.equal(refText('LanguageServer', 'ts'), 'languageserver/ts');
  assert.equal(refText('McpServer', 'ts'), 'server/ts');
});
