import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approveSessionWord } from './approve-session-word.js';

const VALUED = new Set(['--socket', '--workspace', '--session', '--answer-timeout']);

describe('approve NAME --session (DESIGN §7)', () => {
  it('reads a bare --session after approve as --for-session', () => {
    assert.deepEqual(approveSessionWord(['approve', 'fs', '--session'], VALUED), [
      'approve',
      'fs',
      '--for-session',
    ]);
    assert.deepEqual(
      approveSessionWord(
        ['--socket', '/s', '--session', 'ab12', 'approve', 'fs', '--session'],
        VALUED,
      ),
      ['--socket', '/s', '--session', 'ab12', 'approve', 'fs', '--for-session'],
      'the global --session before the command keeps its value',
    );
  });

  it('leaves every other command, and a --session=value, as they are', () => {
    const get = ['get', 'servers', '--session', 'ab12'];
    assert.deepEqual(approveSessionWord(get, VALUED), get);
    const reject = ['reject', 'fs', '--session', 'ab12'];
    assert.deepEqual(approveSessionWord(reject, VALUED), reject);
    const valued = ['approve', 'fs', '--session=ab12'];
    assert.deepEqual(approveSessionWord(valued, VALUED), valued);
    // A global value that is itself the word `approve` is a value, not the command.
    const named = ['--workspace', 'approve', 'get', 'servers', '--session', 'x'];
    assert.deepEqual(approveSessionWord(named, VALUED), named);
  });
});
