import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { commandHint, shellQuote } from './shell-quote.js';

describe('shellQuote', { timeout: 10_000 }, () => {
  it('leaves plain words alone and quotes the rest', () => {
    assert.equal(shellQuote('fs'), 'fs');
    assert.equal(shellQuote('server/my-fs_2.x'), 'server/my-fs_2.x');
    assert.equal(shellQuote('a b'), "'a b'");
    assert.equal(shellQuote("it's"), "'it'\\''s'");
    assert.equal(shellQuote(''), "''");
  });

  it('gives the shell back exactly the name, one argument, nothing expanded', () => {
    for (const name of [
      "it's",
      'a b',
      '$(touch /tmp/x)',
      '`id`',
      'x;y',
      '"q"',
      '*',
      '\\',
      'x\u001b]52;c;SGVsbG8=\u0007y',
    ]) {
      const out = execFileSync('sh', ['-c', `printf '%s\\0' ${shellQuote(name)}`]).toString();
      assert.equal(out, `${name}\0`, name);
    }
  });

  it('keeps the usual prose quotes only when nothing needed quoting', () => {
    assert.equal(commandHint(['mcpctl', 'approve', 'fs']), "'mcpctl approve fs'");
    assert.equal(commandHint(['mcpctl', 'approve', 'a b']), "mcpctl approve 'a b'");
  });
});
