// The rules of server-progress.ts with scripted progress (no process).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { until } from '../testing/until.js';
import { MAX_TRACKED, ServerProgress } from './server-progress.js';

const T = { timeout: 10_000 };
const begin = (title: string) => ({ kind: 'begin' as const, title });
const end = { kind: 'end' as const };
/** A send whose answer is what `f` returns when it is sent. */
const answering =
  <R>(f: () => R) =>
  (): Promise<R> =>
    Promise.resolve(f());

test('no work reported: asked at once and once, nothing said', T, async () => {
  const progress = new ServerProgress();
  let sends = 0;
  assert.deepEqual(
    await progress.ask(
      answering(() => ++sends),
      { waitMs: 5_000 },
    ),
    { result: 1 },
  );
  assert.equal(sends, 1);
});

test('work running: the question waits for its end', T, async () => {
  const progress = new ServerProgress();
  progress.created('load');
  progress.update('load', begin('Loading'));
  const sent: string[] = [];
  let ended = false;
  const answer = progress.ask(
    answering(() => sent.push(ended ? 'after' : 'before')),
    {
      waitMs: 5_000,
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(sent, [], 'not asked while it runs');
  ended = true;
  progress.update('load', end);
  assert.deepEqual(await answer, { result: 1 });
  assert.deepEqual(sent, ['after']);
});

test('work created while the question was out: asked again after it ended', T, async () => {
  const progress = new ServerProgress();
  let sends = 0;
  const answer = progress.ask(
    answering(() => {
      sends += 1;
      // The server starts loading while it answers (its answer came from partial knowledge).
      if (sends === 1) progress.created('load');
      return sends;
    }),
    { waitMs: 5_000 },
  );
  await until('the first question', () => sends === 1);
  progress.update('load', begin('Loading'));
  progress.update('load', end);
  assert.deepEqual(await answer, { result: 2 });
});

test('work that came and went during the question: asked again at once', T, async () => {
  const progress = new ServerProgress();
  let sends = 0;
  const answer = await progress.ask(
    answering(() => {
      sends += 1;
      if (sends === 1) {
        progress.created('quick');
        progress.update('quick', begin('Quick'));
        progress.update('quick', end);
      }
      return sends;
    }),
    { waitMs: 5_000 },
  );
  assert.deepEqual(answer, { result: 2 });
});

test(
  'past the wait: the answer names the work; later questions do not wait for it again',
  T,
  async () => {
    const progress = new ServerProgress();
    progress.created('index');
    progress.update('index', begin('Indexing'));
    assert.deepEqual(
      await progress.ask(
        answering(() => 'a'),
        { waitMs: 20 },
      ),
      {
        result: 'a',
        busy: ['Indexing'],
      },
    );
    // A long wait would make the test time out: it is not waited for again.
    assert.deepEqual(
      await progress.ask(
        answering(() => 'b'),
        { waitMs: 60_000 },
      ),
      {
        result: 'b',
        busy: ['Indexing'],
      },
    );
    // New work is waited for anew.
    progress.created('fetch');
    progress.update('fetch', begin('Fetching'));
    const waiting = progress.ask(
      answering(() => 'c'),
      { waitMs: 60_000 },
    );
    progress.update('fetch', end);
    assert.deepEqual(await waiting, { result: 'c', busy: ['Indexing'] });
    progress.update('index', end);
    assert.deepEqual(
      await progress.ask(
        answering(() => 'd'),
        { waitMs: 60_000 },
      ),
      { result: 'd' },
    );
  },
);

test('a token created and never begun holds questions only for its grace', T, async () => {
  const progress = new ServerProgress({ createdGraceMs: 30 });
  progress.created('unused');
  let sent = false;
  const answer = progress.ask(
    answering(() => (sent = true)),
    { waitMs: 60_000 },
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(sent, false, 'held while it may begin');
  // Far below the wait: the grace ends it, and it is no work to name.
  assert.deepEqual(await answer, { result: true });
  assert.deepEqual(progress.running(), []);
});

test('at most MAX_TRACKED tokens are followed; the end of a wait when disposed', T, async () => {
  const progress = new ServerProgress();
  for (let i = 0; i < MAX_TRACKED * 10; i++) {
    progress.created(i);
    progress.update(i, begin(`work ${i}`));
  }
  assert.equal(progress.running().length, MAX_TRACKED);
  assert.equal(progress.created('one more'), false);
  const waiting = progress.ask(
    answering(() => 'gone'),
    { waitMs: 60_000 },
  );
  progress.dispose();
  assert.equal((await waiting).result, 'gone');
  assert.deepEqual(progress.running(), []);
});

test('an asker that gives up stops waiting', T, async () => {
  const progress = new ServerProgress();
  progress.created('load');
  progress.update('load', begin('Loading'));
  const controller = new AbortController();
  const waiting = progress.ask(
    answering(() => 'asked'),
    {
      waitMs: 60_000,
      signal: controller.signal,
    },
  );
  controller.abort();
  // The send itself refuses an aborted signal (connection.ts); here it just answers.
  assert.equal((await waiting).result, 'asked');
});
