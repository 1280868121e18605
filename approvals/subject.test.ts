import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { approvalHashOf, type DesiredServer } from '../api/index.js';
import { MIN_HASH_PREFIX, checkPin, subjectOf, summaryLine, summaryOf } from './subject.js';

const server: DesiredServer = {
  name: 'fs',
  scope: 'project',
  source: '/ws/.mcp.json',
  config: {
    command: 'node',
    args: ['s.js', 'a b'],
    env: { TOKEN: 'hunter2' },
    headers: { Authorization: 'Bearer sekrit' },
  },
};

describe('approval subject', () => {
  it('is the config shown, by its hash; a repository env value is shown, never in the line', () => {
    const subject = subjectOf(server);
    assert.equal(subject.hash, approvalHashOf(server.config));
    const summary = summaryOf(subject);
    assert.deepEqual(summary.disclosure.fields, [
      ['command', '"node"'],
      ['args', '["s.js","a b"]'],
    ]);
    // The repository's text, for the person deciding.
    assert.deepEqual(summary.disclosure.inputs, [['env', 'TOKEN="hunter2"']]);
    assert.deepEqual(summary.disclosure.sends, []);
    assert.doesNotMatch(JSON.stringify(summary), /sekrit/);
    // The line events and errors carry names what runs, no env value.
    assert.equal(summaryLine(summary), `command "node" args ["s.js","a b"] (hash ${subject.hash})`);
  });

  it("the user's own env values stay hidden in the summary", () => {
    const summary = summaryOf(subjectOf({ ...server, scope: 'user' }));
    assert.deepEqual(summary.disclosure.inputs, []);
    assert.deepEqual(summary.disclosure.sends, [
      'passes a value written in the file to the command (env "TOKEN", hidden)',
    ]);
    assert.doesNotMatch(JSON.stringify(summary) + summaryLine(summary), /hunter2|sekrit/);
  });

  it('a URL server is summarised by its URL, as the file writes it, never a literal secret', () => {
    const summary = summaryOf(
      subjectOf({
        ...server,
        config: {
          httpUrl: 'https://example.test/mcp?k=${KEY}&t=literal-tok',
          headers: { Authorization: 'Bearer sekrit' },
          oauth: { enabled: false },
        },
      }),
    );
    assert.equal(
      summaryLine(summary),
      `url "https://example.test/mcp?k=\${KEY}&t=<redacted>" (hash ${summary.hash})`,
    );
    assert.doesNotMatch(JSON.stringify(summary), /literal-tok|sekrit/);
  });

  it('a --hash pin matches only a long enough hex prefix of the current hash', () => {
    const hash = approvalHashOf(server.config);
    assert.deepEqual(checkPin(hash, hash), { ok: true });
    assert.deepEqual(checkPin(hash, hash.slice(0, MIN_HASH_PREFIX).toUpperCase()), { ok: true });
    assert.equal(checkPin(hash, hash.slice(0, MIN_HASH_PREFIX - 1)).ok, false);
    assert.equal(checkPin(hash, `${hash}0`).ok, false);
    assert.equal(checkPin(hash, 'not-a-hash').ok, false);
    const other = approvalHashOf({ command: 'other' });
    assert.match(
      (checkPin(hash, other.slice(0, 12)) as { problem: string }).problem,
      /does not match the current config/,
    );
  });
});
