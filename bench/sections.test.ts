import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isFailed, runSections, type BenchSection } from './sections.js';

const T = { timeout: 10_000 };

function section(title: string, keys: string[], run: BenchSection['run']): BenchSection {
  return { title, keys, run };
}

describe('bench sections', () => {
  it('a section that throws is recorded as failed; the ones after it still run', T, async () => {
    const ran: string[] = [];
    const logged: string[] = [];
    const outcome = await runSections(
      [
        section('1/3 first', ['first'], () => {
          ran.push('first');
          return Promise.resolve({ figures: { first: { ms: 1 } }, lines: ['first line'] });
        }),
        section('2/3 crashes', ['gapA', 'gapB'], () => {
          ran.push('crashes');
          return Promise.reject(new Error('MCP error -32000: Connection closed\n    at stack'));
        }),
        section('3/3 last', ['last'], () => {
          ran.push('last');
          return Promise.resolve({ figures: { last: { ms: 3 } }, lines: ['last line'] });
        }),
      ],
      (line) => logged.push(line),
    );
    assert.deepEqual(ran, ['first', 'crashes', 'last']);
    assert.deepEqual(outcome.figures, {
      first: { ms: 1 },
      gapA: { failed: 'MCP error -32000: Connection closed' },
      gapB: { failed: 'MCP error -32000: Connection closed' },
      last: { ms: 3 },
    });
    assert.ok(isFailed(outcome.figures.gapA));
    assert.ok(!isFailed(outcome.figures.first));
    assert.deepEqual(outcome.failed, ['2/3 crashes']);
    assert.equal(outcome.lines.length, 3);
    assert.equal(outcome.lines[0], 'first line');
    assert.match(
      outcome.lines[1] ?? '',
      /^2\/3 crashes: FAILED — MCP error -32000: Connection closed$/,
    );
    assert.equal(outcome.lines[2], 'last line');
    assert.ok(
      logged.some((l) => l.includes('at stack')),
      'the log has the whole error',
    );
  });

  it('a figure that failed within a section fails the run; its section goes on', T, async () => {
    const outcome = await runSections(
      [
        section('2/9 scale', ['scale'], () =>
          Promise.resolve({
            figures: { scale: [{ servers: 10 }, { servers: 100, failed: 'child exited with 1' }] },
            lines: ['N=10', 'N=100: FAILED'],
            failedFigures: ['N=100'],
          }),
        ),
      ],
      () => undefined,
    );
    assert.deepEqual(outcome.failed, ['2/9 scale: N=100']);
    assert.deepEqual(outcome.lines, ['N=10', 'N=100: FAILED']);
  });

  it('a section that throws something not an Error still fails with a message', T, async () => {
    const outcome = await runSections(
      // What a careless library does: rejects with an empty string.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      [section('lone', ['lone'], () => Promise.reject(''))],
      () => undefined,
    );
    assert.deepEqual(outcome.figures, { lone: { failed: 'failed without a message' } });
    assert.deepEqual(outcome.failed, ['lone']);
  });
});
