import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { ProgressLine, withProgress, type ProgressSink } from './progress.js';

function sinkOf(isTTY: boolean, columns = 80): ProgressSink & { written: string[] } {
  const written: string[] = [];
  return { isTTY, columns, written, write: (raw) => void written.push(raw) };
}

describe('the progress line', () => {
  it('shows nothing at all when stderr is not a terminal', { timeout: 2000 }, () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
    try {
      const sink = sinkOf(false);
      const line = new ProgressLine(sink);
      line.start('waiting for server/x Ready=True');
      mock.timers.tick(5000);
      line.update('still');
      line.stop();
      assert.deepEqual(sink.written, []);
    } finally {
      mock.timers.reset();
    }
  });

  it(
    'on a terminal: nothing before the delay, then the seconds, erased at the end',
    { timeout: 2000 },
    () => {
      mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
      try {
        const sink = sinkOf(true);
        const line = new ProgressLine(sink);
        line.start('waiting for server/x Ready=True');
        mock.timers.tick(200);
        assert.deepEqual(sink.written, [], 'a quick wait does not flicker');
        mock.timers.tick(100);
        assert.deepEqual(sink.written, ['\r\u001b[2Kwaiting for server/x Ready=True… 0s']);
        mock.timers.tick(3000);
        assert.equal(sink.written.at(-1), '\r\u001b[2Kwaiting for server/x Ready=True… 3s');
        line.update('waiting for server/x Ready=True (now Ready=False ConnectFailed)');
        assert.match(sink.written.at(-1) ?? '', /now Ready=False ConnectFailed\)… 3s$/);
        const before = sink.written.length;
        line.stop();
        assert.equal(sink.written.at(-1), '\r\u001b[2K', 'the line is erased');
        mock.timers.tick(10_000);
        assert.equal(sink.written.length, before + 1, 'no timer is left behind');
      } finally {
        mock.timers.reset();
      }
    },
  );

  it("escapes a server's text and fits the terminal's width", { timeout: 2000 }, () => {
    mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
    try {
      const sink = sinkOf(true, 40);
      const line = new ProgressLine(sink, { delayMs: 0 });
      line.start('waiting for server/\u001b]52;c;eA==\u0007\u202eevil and a long tail');
      mock.timers.tick(1);
      const drawn = sink.written.at(-1) ?? '';
      const text = drawn.slice('\r\u001b[2K'.length);
      assert.doesNotMatch(text, /[\u0000-\u001f\u007f-\u009f\u202e]/);
      assert.ok(text.length <= 39, text);
      assert.ok(text.endsWith('… 0s'), 'the seconds are never cut off');
      assert.ok(text.startsWith('waiting for server/\\x1b]52'), text);
      line.stop();
    } finally {
      mock.timers.reset();
    }
  });

  it('withProgress stops the line when the work fails too', { timeout: 2000 }, async () => {
    const sink = sinkOf(true);
    await assert.rejects(
      withProgress(sink, 'reloading', () => Promise.reject(new Error('boom')), { delayMs: 0 }),
      /boom/,
    );
    // Stopped before its first draw: nothing was shown, nothing is left to erase.
    assert.ok(sink.written.every((w) => w === '\r\u001b[2K' || w.includes('reloading')));
  });
});
