import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Io } from './command-env.js';
import { VALUED_GLOBALS, commandWordOf } from './command-word.js';
import { buildProgram } from './program.js';

describe('commandWordOf', () => {
  it('skips options and the values of the global options that take one', () => {
    assert.equal(commandWordOf(['serve', '--workspace', '/w']), 'serve');
    assert.equal(
      commandWordOf(['--socket', 'serve', 'get', 'servers']),
      'get',
      'a socket named serve',
    );
    assert.equal(commandWordOf(['--workspace', '/w', '--show-secrets', 'serve']), 'serve');
    assert.equal(commandWordOf(['--socket=/s', 'serve']), 'serve');
    assert.equal(commandWordOf(['--session', 'serve', 'why', 'x']), 'why');
    assert.equal(commandWordOf(['--answer-timeout', '5s', 'serve']), 'serve');
    assert.equal(commandWordOf(['--', 'serve']), 'serve');
    assert.equal(commandWordOf(['--version']), undefined);
    assert.equal(commandWordOf([]), undefined);
    assert.equal(commandWordOf(['get', 'serve']), 'get', 'a later word is never the command');
  });

  it('knows every global option that takes a value, as the program declares them', () => {
    const io: Io = {
      out: () => undefined,
      err: () => undefined,
      stdoutIsTTY: false,
      stderrIsTTY: false,
    };
    const declared = buildProgram(io, () => undefined)
      .options.filter((o) => o.required || o.optional)
      .map((o) => o.long)
      .sort();
    assert.deepEqual(declared, [...VALUED_GLOBALS].sort());
  });
});
