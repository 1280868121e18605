import assert from 'node:assert/strict';
import { test } from 'node:test';
import { logLine, resolveLogFormat } from './log-lines.js';
import { plain } from './style.js';

test('one readable line per pino event, values escaped and quoted', { timeout: 1000 }, () => {
  const time = new Date(2026, 0, 2, 3, 4, 5).getTime();
  const line = logLine(
    JSON.stringify({
      level: 40,
      time,
      pid: 1,
      hostname: 'h',
      name: 'mcpctl',
      msg: 'server said \u001b[2J\nfake line',
      object: 'server/x',
      reason: 'a reason with spaces',
      ceiling: null,
      count: 2,
    }),
    plain,
  );
  assert.equal(
    line,
    '03:04:05 WARN  server said \\x1b[2J\\nfake line object=server/x reason="a reason with spaces" count=2\n',
  );
  assert.equal(line.split('\n').length, 2, 'one line');
});

test('a line that is not pino JSON is kept, escaped', { timeout: 1000 }, () => {
  assert.equal(logLine('not json \u202e', plain), 'not json \\u202e\n');
  assert.equal(logLine('[1,2]', plain), '[1,2]\n');
});

test('auto: text on a terminal, JSON when piped', { timeout: 1000 }, () => {
  assert.equal(resolveLogFormat('auto', true), 'text');
  assert.equal(resolveLogFormat('auto', false), 'json');
  assert.equal(resolveLogFormat('json', true), 'json');
});
