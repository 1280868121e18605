import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../errors.js';
import { entryOf, shownEntry, type EntryWords } from './server-entry.js';

const T = { timeout: 5000 };
const words = (w: Partial<EntryWords>): EntryWords => ({ words: [], env: [], headers: [], ...w });

function usage(w: Partial<EntryWords>, pattern: RegExp): void {
  assert.throws(
    () => entryOf(words(w)),
    (err: unknown) => err instanceof UsageError && err.exitCode === 2 && pattern.test(err.message),
  );
}

describe('entryOf', () => {
  it('makes a stdio entry in the .mcp.json shape', T, () => {
    assert.deepEqual(entryOf(words({ words: ['npx', '-y', 'pkg'], env: ['A=b=c', 'T=${T}'] })), {
      type: 'stdio',
      command: 'npx',
      args: ['-y', 'pkg'],
      env: { A: 'b=c', T: '${T}' },
    });
  });

  it('makes a remote entry from --url or the word after --transport', T, () => {
    assert.deepEqual(entryOf(words({ url: 'https://h.test/mcp', headers: ['X-Key:  v'] })), {
      type: 'http',
      url: 'https://h.test/mcp',
      headers: { 'X-Key': 'v' },
    });
    assert.deepEqual(entryOf(words({ transport: 'sse', words: ['https://h.test/sse'] })), {
      type: 'sse',
      url: 'https://h.test/sse',
    });
  });

  it('refuses bad words as usage errors, quoting no value', T, () => {
    usage({ words: ['x'], env: ['bad key=secret-value'] }, /^--env takes KEY=VALUE/);
    usage({ words: ['x'], env: ['NOEQUALS'] }, /^--env takes/);
    usage({ url: 'https://h.test', headers: ['X: a\r\nInjected: 1'] }, /line break or NUL/);
    usage({ url: 'https://h.test', headers: ['Bad Name: v'] }, /^--header takes NAME:VALUE/);
    usage({ url: 'file:///etc/passwd' }, /http:\/\/ or https:\/\//);
    usage({ url: 'https://h.test', words: ['node'] }, /exclude each other/);
    usage({ url: 'https://h.test', env: ['A=1'] }, /--env is for a server mcpctl starts/);
    usage({ words: ['node'], headers: ['A: 1'] }, /--header is for a remote server/);
    usage({}, /give the command that starts the server after --/);
    usage({ transport: 'http', words: ['a', 'b'] }, /takes one URL/);
    for (const bad of ['bad key=secret-value', 'NOEQUALS'])
      assert.throws(
        () => entryOf(words({ words: ['x'], env: [bad] })),
        (e: Error) => !e.message.includes('secret-value'),
      );
  });
});

describe('shownEntry', () => {
  it('hides env and header values and URL secrets, keeps references', T, () => {
    const shown = shownEntry({
      type: 'http',
      url: 'https://user:pw@h.test/mcp?key=abc123',
      headers: { Authorization: 'Bearer literal-token', 'X-Ref': '${TOKEN}' },
    });
    assert.ok(!/pw|abc123|literal-token/.test(shown), shown);
    assert.match(shown, /"X-Ref": "\$\{TOKEN\}"/);
    const stdio = shownEntry({ type: 'stdio', command: 'n', env: { K: 'secret-value' } });
    assert.ok(!stdio.includes('secret-value'));
  });
});
