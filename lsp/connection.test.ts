import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { LspConnection } from './connection.js';
import { LspError } from './errors.js';
import { MAX_ANSWER_ITEMS } from './answer-limits.js';
import { diagnostics, references, workspaceSymbols } from './requests.js';
import { groupAlive } from '../proc/index.js';
import { DEFAULT_MAX_DIAGNOSTICS, DEFAULT_MAX_FILES } from './diagnostics.js';
import { APPLY_EDIT_REFUSED, MAX_REGISTRATIONS } from './server-requests.js';
import { fakeServer } from './testing/servers.js';
import { uriOf } from './workspace-files.js';

const T = { timeout: 30_000 };

interface FakeState {
  initializeParams: {
    rootUri: string;
    workspaceFolders: Array<{ uri: string }>;
    capabilities: { general: { positionEncodings: string[] } };
  };
  answers: Record<string, { result?: unknown; error?: { code: number; message: string } }>;
  notifications: Array<{ method: string; params: unknown }>;
  configurationAnswers: unknown[];
}

/** The group of a process we started is gone (every member, zombies included). */
async function groupGone(pid: number | undefined): Promise<void> {
  assert.ok(pid !== undefined && pid > 1);
  await until(`process group ${pid} to be gone`, () => !groupAlive(pid), { timeoutMs: 10_000 });
}

/** Ends a block's server, its whole group, and removes the block's folder. */
async function closeAndRemove(conn: LspConnection, dir: TempDir): Promise<void> {
  const pid = conn.pid;
  await conn.close();
  await groupGone(pid);
  dir.remove();
}

describe('a well-behaved server', () => {
  let dir: TempDir;
  let conn: LspConnection;
  const lost: string[] = [];
  const state = (): Promise<FakeState> => conn.request<FakeState>('fake/state', null);

  before(async () => {
    dir = tempDir('mcpctl-lsp-conn-');
    conn = new LspConnection(
      fakeServer(dir.path, 'normal', {
        settings: { fake: { nested: { depth: 2 }, flag: true }, other: 1 },
        maxMessageBytes: 64 * 1024,
      }),
      { onLost: (reason) => lost.push(reason) },
    );
    await conn.open();
  });

  after(() => closeAndRemove(conn, dir));

  test('initialize names the workspace folder and offers the position encodings', T, async () => {
    const { initializeParams } = await state();
    assert.equal(initializeParams.rootUri, uriOf(dir.path));
    assert.deepEqual(
      initializeParams.workspaceFolders.map((f) => f.uri),
      [uriOf(dir.path)],
    );
    assert.deepEqual(initializeParams.capabilities.general.positionEncodings, [
      'utf-16',
      'utf-8',
      'utf-32',
    ]);
    assert.equal(conn.encoding, 'utf-16');
    assert.equal(conn.stats().server, 'fake-server 1.0');
  });

  test("the server's requests to its client are answered", T, async () => {
    const s = await until('the fake server to have all its answers', async () => {
      const now = await state();
      return Object.keys(now.answers).length === 7 && now;
    });
    assert.deepEqual(s.answers.configuration, {
      result: [
        { nested: { depth: 2 }, flag: true },
        { depth: 2 },
        null,
        { fake: { nested: { depth: 2 }, flag: true }, other: 1 },
      ],
    });
    assert.deepEqual(s.answers.registerCapability, { result: null });
    assert.deepEqual(s.answers.workDoneProgressCreate, { result: null });
    assert.deepEqual(s.answers.showMessageRequest, { result: null });
    assert.deepEqual(s.answers.workspaceFolders, {
      result: [{ uri: uriOf(dir.path), name: dir.path.split('/').pop() }],
    });
    assert.equal(s.answers.unknown?.error?.code, -32601, 'an unknown request gets MethodNotFound');
    // The settings were also pushed once, right after initialized.
    const pushed = s.notifications.filter((n) => n.method === 'workspace/didChangeConfiguration');
    assert.deepEqual(pushed[0]?.params, {
      settings: { fake: { nested: { depth: 2 }, flag: true }, other: 1 },
    });
  });

  test('pull diagnostics, registered late, answer for the content on disk now', T, async () => {
    // The registration came with the requests at `initialized` (the test above waited for it).
    writeFileSync(dir.file('a.txt'), 'fine\nERROR here\nfine\n');
    const first = await diagnostics(conn, { file: 'a.txt' });
    assert.equal(first.state, 'current');
    assert.deepEqual(
      first.state === 'current' ? first.diagnostics.map((d) => [d.line, d.message]) : [],
      [[2, 'error on line 2']],
    );
    writeFileSync(dir.file('a.txt'), 'ERROR\nfine\nfine\nERROR again\n');
    const second = await diagnostics(conn, { file: 'a.txt' });
    assert.deepEqual(
      second.state === 'current' ? second.diagnostics.map((d) => d.line) : second,
      [1, 4],
    );
    assert.ok(second.version > first.version);
    const sent = (await state()).notifications.map((n) => n.method);
    assert.deepEqual(
      sent.filter((m) => m.startsWith('textDocument/')),
      ['textDocument/didOpen', 'textDocument/didChange'],
    );
  });

  test('workspace/applyEdit is refused: mcpctl writes no files', T, async () => {
    const s = await until('the applyEdit answer', async () => (await state()).answers.applyEdit);
    assert.deepEqual(s, { result: { applied: false, failureReason: APPLY_EDIT_REFUSED } });
    assert.ok(conn.notes().some((n) => n.includes('refused')));
  });

  test('new settings are pushed and answered from then on, without a restart', T, async () => {
    const pid = conn.pid;
    conn.setSettings({ fake: { flag: false } });
    const s = await until('the configuration asked again', async () => {
      const now = await state();
      return now.configurationAnswers.length >= 2 && now;
    });
    assert.deepEqual(s.configurationAnswers.at(-1), [{ flag: false }]);
    assert.equal(conn.pid, pid);
  });

  test(
    'a request the server never answers fails after its bound, naming the method',
    T,
    async () => {
      await assert.rejects(
        conn.request('fake/hang', null, { timeoutMs: 200 }),
        (err: unknown) =>
          err instanceof LspError &&
          err.kind === 'timeout' &&
          /fake\/hang within 200 ms/.test(err.message),
      );
      assert.equal(await conn.request('fake/garbage', null), 'ok', 'the connection still works');
    },
  );

  test(
    'an asker that gives up cancels the request: it fails at once, the server goes on',
    T,
    async () => {
      const controller = new AbortController();
      const pending = conn.request('fake/hang', null, {
        timeoutMs: 20_000,
        signal: controller.signal,
      });
      controller.abort();
      await assert.rejects(
        pending,
        (err: unknown) =>
          err instanceof LspError &&
          err.kind === 'cancelled' &&
          /fake\/hang was cancelled/.test(err.message),
      );
      // Already given up: not even sent.
      await assert.rejects(
        conn.request('fake/garbage', null, { signal: controller.signal }),
        (err: unknown) => err instanceof LspError && err.kind === 'cancelled',
      );
      assert.equal(await conn.request('fake/garbage', null), 'ok', 'the connection still works');
    },
  );

  test('garbage on stdout is skipped and noted; the connection goes on', T, async () => {
    assert.equal(await conn.request('fake/garbage', null), 'ok');
    assert.equal(await conn.request('fake/huge', { bytes: 10 }), 'x'.repeat(10));
    assert.ok(
      conn.notes().some((n) => /not LSP: oops: a stray log line/.test(n)),
      conn.notes().join('\n'),
    );
    assert.ok(conn.notes().some((n) => /without a valid Content-Length/.test(n)));
  });

  test(
    'an answer over the size limit fails exactly its request, the connection stays',
    T,
    async () => {
      await assert.rejects(
        conn.request('fake/huge', { bytes: 200 * 1024 }),
        (err: unknown) =>
          err instanceof LspError &&
          err.kind === 'response' &&
          /exceeded the 64 KiB message limit \(it was 200\.0 KiB\)/.test(err.message),
      );
      assert.equal(await conn.request('fake/huge', { bytes: 1000 }), 'x'.repeat(1000));
      assert.deepEqual(lost, []);
    },
  );
});

describe('work the server reports (work-done progress)', () => {
  let dir: TempDir;
  let conn: LspConnection;

  before(async () => {
    dir = tempDir('mcpctl-lsp-work-');
    conn = new LspConnection(fakeServer(dir.path, 'normal', { readyWaitMs: 300 }));
    await conn.open();
  });

  after(() => closeAndRemove(conn, dir));

  test('a question waits for the work to end, then is asked once', T, async () => {
    await conn.request('fake/work', { token: 'load', title: 'Loading' });
    let ended = false;
    const sent: string[] = [];
    const answer = conn.whenReady(async () => {
      sent.push(ended ? 'after the end' : 'while it ran');
      return conn.request<FakeState>('fake/state', null);
    });
    // A question sent at once would have been by the time another round trip is answered.
    await conn.request('fake/state', null);
    ended = true;
    await conn.request('fake/workDone', { token: 'load' });
    const { result, partial } = await answer;
    assert.ok(result.initializeParams);
    assert.equal(partial, undefined);
    assert.deepEqual(sent, ['after the end']);
  });

  test('work that begins while a question is out: asked again once it ended', T, async () => {
    const sent: number[] = [];
    const answer = conn.whenReady(async () => {
      sent.push(sent.length + 1);
      // The first time, the server starts loading while it answers.
      if (sent.length === 1) await conn.request('fake/work', { token: 'again', title: 'Indexing' });
      return sent.length;
    });
    await until('the question to be asked', () => sent.length === 1);
    await conn.request('fake/workDone', { token: 'again' });
    assert.deepEqual(await answer, { result: 2 });
  });

  test(
    'past the wait the answer says it may be partial, naming the work (escaped); later ones do not wait',
    T,
    async () => {
      await conn.request('fake/work', { token: 'long', title: 'Loading \u202e project' });
      const first = await conn.whenReady(() => Promise.resolve('first'));
      assert.equal(first.result, 'first');
      assert.match(
        first.partial ?? '',
        /^language server "fake-normal" was still at work \("Loading \\u202e project"\) when it answered: this answer may be incomplete/,
      );
      let sentWhileRunning = false;
      const second = await conn.whenReady(() => {
        sentWhileRunning = true;
        return Promise.resolve('second');
      });
      assert.ok(sentWhileRunning && second.partial !== undefined, 'asked at once, and says so');
      await conn.request('fake/workDone', { token: 'long' });
      assert.deepEqual(await conn.whenReady(() => Promise.resolve('third')), { result: 'third' });
    },
  );
});

describe('diagnostics and the work a server reports', () => {
  let dir: TempDir;
  let conn: LspConnection;

  before(async () => {
    dir = tempDir('mcpctl-lsp-diag-work-');
    // Questions would wait 20 s for reported work; diagnostics must not wait at all.
    conn = new LspConnection(fakeServer(dir.path, 'normal', { readyWaitMs: 20_000 }));
    await conn.open();
  });

  after(() => closeAndRemove(conn, dir));

  test(
    'work begun and never ended, then a flood of tokens: diagnostics answer at once, of the content now',
    { timeout: 15_000 },
    async () => {
      await conn.request('fake/work', { token: 'forever', title: 'Indexing' });
      await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          conn.request('fake/work', { token: `flood-${i}`, title: `step ${i}` }),
        ),
      );
      for (const [i, text] of ['ERROR\nfine\n', 'fine\nfine\nERROR\n', 'fine\n'].entries()) {
        writeFileSync(dir.file('w.txt'), text);
        const t0 = Date.now();
        const view = await diagnostics(conn, { file: 'w.txt' }, { timeoutMs: 10_000 });
        assert.ok(Date.now() - t0 < 5000, `round ${i}: ${Date.now() - t0} ms`);
        assert.deepEqual(
          view.state === 'current' ? view.diagnostics.map((d) => d.line) : view,
          [[1], [3], []][i],
        );
      }
    },
  );
});

describe('a server flooding its client, and answers too long for an agent', () => {
  let dir: TempDir;
  let conn: LspConnection;

  before(async () => {
    dir = tempDir('mcpctl-lsp-many-');
    conn = new LspConnection(fakeServer(dir.path, 'normal'));
    await conn.open();
  });

  after(() => closeAndRemove(conn, dir));

  test('publishes for endless files and endless registrations stay within bounds', T, async () => {
    // The server's own registration at `initialized` is in before the flood.
    await until('the fake server to have asked all it asks at start', async () => {
      const now = await conn.request<{ answers: Record<string, unknown> }>('fake/state', null);
      return Object.keys(now.answers).length === 7;
    });
    assert.equal(conn.stats().retained.registrations, 1);
    const file = dir.file('open.txt');
    writeFileSync(file, 'ERROR here\nfine\n');
    await conn.documents.sync(file);
    const publishes = DEFAULT_MAX_FILES * 5;
    const outcome = await conn.request<{ accepted: number; refused: number }>('fake/flood', {
      publishes,
      diagnostics: Math.ceil((DEFAULT_MAX_DIAGNOSTICS * 2) / publishes),
      registrations: MAX_REGISTRATIONS + 500,
    });
    // Sent before the answer, so read before it.
    const { retained } = conn.stats();
    assert.ok(retained.diagnosticFiles <= DEFAULT_MAX_FILES, JSON.stringify(retained));
    assert.ok(retained.diagnostics <= DEFAULT_MAX_DIAGNOSTICS, JSON.stringify(retained));
    assert.ok(retained.diagnosticFiles > 0, 'the newest publishes are kept');
    // One registration was made at `initialized`; the flood gets the rest of the room.
    assert.equal(outcome.accepted, MAX_REGISTRATIONS - 1);
    assert.equal(outcome.refused, 501);
    assert.equal(retained.registrations, MAX_REGISTRATIONS);
    assert.equal(
      conn.notes().filter((n) => n.includes('refused client/registerCapability')).length,
      1,
    );
    // The open document still gets current diagnostics, and the server still answers.
    const answer = await diagnostics(conn, { file: 'open.txt' }, { timeoutMs: 10_000 });
    assert.equal(answer.state, 'current');
    assert.deepEqual(answer.state === 'current' ? answer.diagnostics.map((d) => d.message) : [], [
      'error on line 1',
    ]);
    assert.equal(conn.documents.openCount, 1);
  });
  test(
    'thousands of locations, diagnostics or symbols: the first ones, and how many',
    T,
    async () => {
      writeFileSync(dir.file('many.txt'), `${'x'.repeat(100)}\n`.repeat(30));
      const refs = await references(conn, { file: 'many.txt', line: 1, column: 1 });
      assert.equal(refs.locations.length, MAX_ANSWER_ITEMS);
      assert.deepEqual(refs.truncated, { total: 3000, shown: MAX_ANSWER_ITEMS });
      assert.deepEqual(
        refs.locations.slice(0, 2).map((l) => [l.line, l.column]),
        [
          [1, 1],
          [1, 2],
        ],
      );

      writeFileSync(dir.file('errors.txt'), 'ERROR\n'.repeat(1200));
      const diags = await diagnostics(conn, { file: 'errors.txt' }, { timeoutMs: 10_000 });
      assert.equal(diags.state, 'current');
      if (diags.state === 'current') {
        assert.equal(diags.diagnostics.length, MAX_ANSWER_ITEMS);
        assert.deepEqual(diags.truncated, { total: 1200, shown: MAX_ANSWER_ITEMS });
        assert.equal(diags.diagnostics[0]?.message, 'error on line 1');
      }

      writeFileSync(dir.file('symbols.txt'), 'fn\n');
      const symbols = await workspaceSymbols(conn, { query: 'many5000' });
      assert.equal(symbols.symbols.length, MAX_ANSWER_ITEMS);
      assert.deepEqual(symbols.truncated, { total: 5000, shown: MAX_ANSWER_ITEMS });
    },
  );

  test('an answer within the limit is whole and says nothing of a cut', T, async () => {
    writeFileSync(dir.file('few.txt'), 'x x x\n');
    const refs = await references(conn, { file: 'few.txt', line: 1, column: 1 });
    assert.equal(refs.locations.length, 3);
    assert.equal('truncated' in refs, false);
    const symbols = await workspaceSymbols(conn, { query: `many${MAX_ANSWER_ITEMS}` });
    assert.equal(symbols.symbols.length, MAX_ANSWER_ITEMS);
    assert.equal('truncated' in symbols, false);
  });
});

describe('servers that misbehave at start', () => {
  let dir: TempDir;
  before(() => {
    dir = tempDir('mcpctl-lsp-bad-');
  });
  after(() => dir.remove());

  test(
    'one that never answers initialize: open fails after startupTimeout, nothing left',
    T,
    async () => {
      const conn = new LspConnection(fakeServer(dir.path, 'silent', { startupTimeoutMs: 500 }));
      await assert.rejects(conn.open(), (err: unknown) => {
        assert.ok(err instanceof LspError);
        assert.match(
          err.message,
          /fake-silent.*did not answer initialize within 500 ms \(startupTimeout\)/,
        );
        return true;
      });
      await groupGone(conn.pid);
      await conn.close();
    },
  );

  test('one that exits at once: the error says the exit code and its stderr', T, async () => {
    const conn = new LspConnection(fakeServer(dir.path, 'crash'));
    await assert.rejects(conn.open(), (err: unknown) => {
      assert.ok(err instanceof LspError);
      assert.match(err.message, /exited with code 3 while starting/);
      assert.match(err.message, /missing config file fake\.toml/);
      return true;
    });
    await conn.close();
  });

  test('one whose header never ends: bounded, then the startup timeout', T, async () => {
    const conn = new LspConnection(
      fakeServer(dir.path, 'endless-header', { startupTimeoutMs: 1500 }),
    );
    await assert.rejects(conn.open(), /did not answer initialize within 1500 ms/);
    assert.ok(
      conn.notes().some((n) => /header longer than/.test(n)),
      conn.notes().join('\n'),
    );
    await groupGone(conn.pid);
  });

  test('a command that does not exist: a clear error, no process', T, async () => {
    const conn = new LspConnection({
      ...fakeServer(dir.path, 'normal'),
      name: 'nope',
      command: '/no/such/language-server',
    });
    await assert.rejects(
      conn.open(),
      /language server "nope": could not start \/no\/such\/language-server: not found/,
    );
    assert.equal(conn.pid, undefined);
  });

  test('garbage before the first answer does not stop initialize', T, async () => {
    const conn = new LspConnection(fakeServer(dir.path, 'garbage'));
    await conn.open();
    assert.ok(conn.notes().some((n) => /starting fake server/.test(n)));
    const pid = conn.pid;
    await conn.close();
    await groupGone(pid);
  });

  test('a cancel while opening ends it: open rejects with the reason', T, async () => {
    const conn = new LspConnection(fakeServer(dir.path, 'silent', { startupTimeoutMs: 20_000 }));
    const opening = conn.open();
    await until('the process to start', () => conn.pid);
    conn.cancel(new Error('released: no session wants it any more'));
    await assert.rejects(opening, /no session wants it/);
    await groupGone(conn.pid);
  });
});

describe('loss and close', () => {
  let dir: TempDir;
  before(() => {
    dir = tempDir('mcpctl-lsp-loss-');
  });
  after(() => dir.remove());

  test('a SIGKILLed server is reported once through onLost, its group ended', T, async () => {
    const lost: string[] = [];
    const conn = new LspConnection(fakeServer(dir.path, 'normal'), {
      onLost: (reason) => lost.push(reason),
    });
    await conn.open();
    const child = await conn.request<number>('fake/child', null);
    process.kill(conn.pid!, 'SIGKILL');
    await until('onLost', () => lost.length > 0);
    assert.equal(lost.length, 1);
    assert.match(lost[0], /language server "fake-normal": the process was killed by SIGKILL/);
    assert.equal(conn.state, 'lost');
    // Its child (same group) went with it.
    await groupGone(conn.pid);
    assert.throws(() => process.kill(child, 0));
    await assert.rejects(conn.request('fake/state', null), /is not running \(lost\)/);
    await conn.close();
    assert.equal(lost.length, 1, 'close after a loss tells nobody');
  });

  test('close() shuts down politely and leaves no process, children included', T, async () => {
    const lost: string[] = [];
    const conn = new LspConnection(fakeServer(dir.path, 'normal'), {
      onLost: (reason) => lost.push(reason),
    });
    await conn.open();
    const child = await conn.request<number>('fake/child', null);
    await conn.close();
    await groupGone(conn.pid);
    assert.throws(() => process.kill(child, 0));
    assert.deepEqual(lost, [], 'a close is not a loss');
    assert.equal(conn.state, 'closed');
  });

  test(
    'a server that ignores shutdown, exit and SIGTERM is killed within the bounds',
    T,
    async () => {
      const conn = new LspConnection(
        fakeServer(dir.path, 'stubborn', { shutdownTimeoutMs: 300, killGraceMs: 300 }),
      );
      await conn.open();
      await conn.close();
      await groupGone(conn.pid);
    },
  );

  test('a pending request fails at once when the server goes away', T, async () => {
    const conn = new LspConnection(fakeServer(dir.path, 'normal'));
    await conn.open();
    const pending = conn.request('fake/hang', null, { timeoutMs: 20_000 });
    process.kill(conn.pid!, 'SIGKILL');
    await assert.rejects(pending, /went away before it answered fake\/hang/);
    await conn.close();
  });
});
