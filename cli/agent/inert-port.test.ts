/**
 * The inert port (a serve started by mcpctl itself): a language-server question is refused
 * with its reason, as an LspError the gateway gives the agent to read, not a bug it logs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LspError } from '../../controller/lsp-questions.js';
import { InertSessionPort } from './inert-port.js';

test('an lsp question is refused with the reason, and no server is listed', async () => {
  const port = new InertSessionPort('started by mcpctl itself');
  assert.deepEqual(await port.languageServers(), []);
  const err = await port.ask().then(
    () => assert.fail('answered'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof LspError);
  assert.equal(err.message, 'started by mcpctl itself');
});
