// The rules of diagnostics.ts against a scripted server (no process): which publish counts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Diagnostic, ServerCapabilities } from 'vscode-languageserver-protocol/node';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { currentDiagnostics, DiagnosticsStore, type DiagnosticsDeps } from './diagnostics.js';
import { pullOf } from './diagnostics-requests.js';
import { DocumentSync, type DocumentChannel } from './documents.js';
import { LspError } from './errors.js';
import { TSSERVER_REQUEST } from './tsserver-diagnostics.js';
import { pathOf, uriOf } from './workspace-files.js';

const T = { timeout: 15_000 };

let dir: TempDir;
before(() => {
  dir = tempDir('mcpctl-lsp-diag-');
});
after(() => dir.remove());

const diag = (message: string): Diagnostic => ({
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
  message,
});

/** The scripted server: answers a request; sees what the client synced and keeps. */
type Handler = (
  method: string,
  params: object,
  client: { documents: DocumentSync; store: DiagnosticsStore },
) => Promise<unknown>;

/** The document channel of a connection: notifications recorded, opens told to `store`. */
function channelOf(store: DiagnosticsStore, sent: string[] = []): DocumentChannel {
  return {
    notify: (method) => sent.push(method),
    opened: (doc, reopened) => store.opened(doc.path, doc.version, reopened),
  };
}

/** What the scripted server offers, as its initialize result would say. */
const PULL: ServerCapabilities = {
  diagnosticProvider: { interFileDependencies: false, workspaceDiagnostics: false },
};
const COMMAND: ServerCapabilities = {
  executeCommandProvider: { commands: ['_typescript.organizeImports', TSSERVER_REQUEST] },
};

function setup(
  options: {
    pull?: boolean;
    command?: boolean;
    barrier?: boolean;
    handler?: Handler;
    settings?: unknown;
    initializationOptions?: unknown;
  } = {},
) {
  const store = new DiagnosticsStore();
  const sent: string[] = [];
  const documents = new DocumentSync(channelOf(store, sent), { '.ts': 'typescript' });
  const asked: string[] = [];
  const request = <R>(method: string, params: object): Promise<R> => {
    asked.push(method);
    return (options.handler ?? (() => Promise.resolve(null)))(method, params, {
      documents,
      store,
    }) as Promise<R>;
  };
  // The connection's own choice (diagnostics-requests.ts), from what the server offers.
  const capabilities = options.pull ? PULL : options.command ? COMMAND : {};
  const deps: DiagnosticsDeps = {
    documents,
    store,
    request,
    pull: () =>
      pullOf(capabilities, () => false, {
        request,
        settings: () => options.settings,
        initializationOptions: options.initializationOptions,
        serverCommand: true,
      }),
    barrier: (doc) =>
      options.barrier === false
        ? undefined
        : { method: 'textDocument/documentSymbol', params: { textDocument: { uri: doc.uri } } },
    settleMs: 100,
    now: Date.now,
  };
  return { store, documents, deps, asked, sent };
}

const messages = (answer: Awaited<ReturnType<typeof currentDiagnostics>>): string[] | string =>
  answer.state === 'current'
    ? answer.diagnostics.map((d) => (typeof d.message === 'string' ? d.message : d.message.value))
    : answer.state;

test('versioned: only a publish of the synced version counts, never an older one', T, async () => {
  const { store, documents, deps } = setup();
  const file = dir.file('v.ts');
  const uri = uriOf(file);
  store.publish({ uri: uriOf(dir.file('other.ts')), version: 1, diagnostics: [] }); // versioned server
  writeFileSync(file, 'one');
  const first = currentDiagnostics(deps, file, 5000);
  const v = (await until('the sync', () => documents.get(file))).version;
  store.publish({ uri, version: v - 1, diagnostics: [diag('older')] });
  store.publish({ uri, version: v, diagnostics: [diag('current')] });
  assert.deepEqual(messages(await first), ['current']);
  // The file changes: the diagnostics of the old version are there, and must not be answered.
  writeFileSync(file, 'two');
  const second = await currentDiagnostics(deps, file, 200);
  assert.equal(second.state, 'analysing');
  assert.equal(second.document.version, v + 1);
  documents.dispose();
});

test(
  'unversioned: a publish before the barrier answer is older content, one after it counts',
  T,
  async () => {
    let publishDuringBarrier: (() => void) | undefined;
    const { store, documents, deps, asked } = setup({
      handler: (method) => {
        // The server publishes (for what it had before) while it takes in the sync, then answers.
        if (method === 'textDocument/documentSymbol') publishDuringBarrier?.();
        return Promise.resolve([]);
      },
    });
    const file = dir.file('u.ts');
    const uri = uriOf(file);
    writeFileSync(file, 'content');
    publishDuringBarrier = () => store.publish({ uri, diagnostics: [diag('stale')] });
    const none = await currentDiagnostics(deps, file, 300);
    assert.equal(none.state, 'analysing', 'the stale publish must not count');
    publishDuringBarrier = undefined;
    // The next call about the same version reuses its barrier: a publish after it counts.
    const next = currentDiagnostics(deps, file, 5000);
    setTimeout(() => store.publish({ uri, diagnostics: [diag('fresh')] }), 20);
    assert.deepEqual(messages(await next), ['fresh']);
    // The first open got a publish before its barrier: it was opened afresh once (a new
    // version, its own barrier), and that barrier served the next call.
    assert.deepEqual(asked, ['textDocument/documentSymbol', 'textDocument/documentSymbol']);
    documents.dispose();
  },
);

/**
 * Resolves once the barrier request was asked and its answer taken in: the answer resolves at
 * once, so by the time a timer-driven poll sees the request, its answer has been processed. (A
 * fixed delay instead would race the barrier on a loaded machine.)
 */
const barrierAnswered = (asked: readonly string[]) =>
  until('the barrier to be answered', () => asked.includes('textDocument/documentSymbol'));

test('unversioned: the last publish of a burst is the answer', T, async () => {
  const { store, documents, deps, asked } = setup();
  const file = dir.file('burst.ts');
  const uri = uriOf(file);
  writeFileSync(file, 'x');
  const answer = currentDiagnostics(deps, file, 5000);
  await barrierAnswered(asked);
  store.publish({ uri, diagnostics: [diag('syntax')] });
  setTimeout(() => store.publish({ uri, diagnostics: [diag('syntax'), diag('semantic')] }), 40);
  assert.deepEqual(messages(await answer), ['syntax', 'semantic']);
  documents.dispose();
});

test(
  'unversioned: a file an earlier question opened, published since: answered at once, twice',
  T,
  async () => {
    const { store, documents, deps, asked } = setup();
    const file = dir.file('asked.ts');
    const uri = uriOf(file);
    writeFileSync(file, 'asked');
    // A hover opened it and was answered (connection.ts tells the store), then the publish.
    const doc = await documents.sync(file);
    store.answered(file, doc.version);
    store.publish({ uri, diagnostics: [diag('of the open')] });
    for (let ask = 1; ask <= 2; ask += 1)
      assert.deepEqual(messages(await currentDiagnostics(deps, file, 5000)), ['of the open']);
    assert.deepEqual(asked, [], 'no barrier: the answer was one');
    documents.dispose();
  },
);

test(
  'unversioned: published after a first open, before any answer: opened afresh, not a wait for nothing',
  T,
  async () => {
    // The server publishes once per open, after it took it in (after the barrier's answer).
    let opened = (): number => 0;
    let published = 0;
    const { store, documents, deps, sent } = setup({
      handler: (method, params) => {
        const { uri } = (params as { textDocument: { uri: string } }).textDocument;
        if (method === 'textDocument/documentSymbol' && opened() > published) {
          published = opened();
          const n = published;
          setTimeout(() => store.publish({ uri, diagnostics: [diag(`open ${n}`)] }), 10);
        }
        return Promise.resolve([]);
      },
    });
    opened = () => sent.filter((m) => m === 'textDocument/didOpen').length;
    const file = dir.file('restarted.ts');
    writeFileSync(file, 'restarted');
    // Opened without a question (as documents are again after a restart), and published for.
    await documents.sync(file);
    store.publish({ uri: uriOf(file), diagnostics: [diag('open 1')] });
    published = 1;
    // Without a fresh open this waits its whole bound for a publish that already came.
    assert.deepEqual(messages(await currentDiagnostics(deps, file, 3000)), ['open 2']);
    assert.deepEqual(sent, [
      'textDocument/didOpen',
      'textDocument/didClose',
      'textDocument/didOpen',
    ]);
    documents.dispose();
  },
);

test(
  'unversioned: a changed file is re-opened, never answered with the old publish',
  T,
  async () => {
    const { deps: d, asked, store, documents, sent } = setup();
    const file = dir.file('r.ts');
    const uri = uriOf(file);
    writeFileSync(file, 'a');
    const first = currentDiagnostics(d, file, 5000);
    await barrierAnswered(asked);
    store.publish({ uri, diagnostics: [diag('of a')] });
    assert.deepEqual(messages(await first), ['of a']);
    writeFileSync(file, 'b');
    assert.equal((await currentDiagnostics(d, file, 200)).state, 'analysing');
    assert.deepEqual(sent, [
      'textDocument/didOpen',
      'textDocument/didClose',
      'textDocument/didOpen',
    ]);
    documents.dispose();
  },
);

test(
  'pull: the answer to a request sent after the sync; a server-cancelled one is asked again',
  T,
  async () => {
    let calls = 0;
    const { documents, deps } = setup({
      pull: true,
      handler: (method) => {
        assert.equal(method, 'textDocument/diagnostic');
        calls += 1;
        if (calls === 1) return Promise.reject(new LspError('response', 'busy', { code: -32802 }));
        return Promise.resolve({ kind: 'full', items: [diag('pulled')] });
      },
    });
    const file = dir.file('p.ts');
    writeFileSync(file, 'x');
    assert.deepEqual(messages(await currentDiagnostics(deps, file, 5000)), ['pulled']);
    assert.equal(calls, 2);
    documents.dispose();
  },
);

test('the store keeps at most its files and diagnostics, dropping the least recent', T, () => {
  const store = new DiagnosticsStore({ maxFiles: 100, maxDiagnostics: 1000 });
  const uri = (i: number) => uriOf(dir.file(`flood-${i}.ts`));
  for (let i = 0; i < 10_000; i++)
    store.publish({ uri: uri(i), diagnostics: [diag('a'), diag('b'), diag('c')] });
  assert.equal(store.seq, 10_000);
  assert.ok(store.size.files <= 100, `files kept: ${store.size.files}`);
  assert.ok(store.size.diagnostics <= 1000, `diagnostics kept: ${store.size.diagnostics}`);
  assert.equal(store.size.diagnostics, store.size.files * 3);
  assert.equal(store.withoutVersion(dir.file('flood-9999.ts'))?.diagnostics.length, 3);
  assert.equal(store.withoutVersion(dir.file('flood-0.ts')), undefined);
  assert.equal(store.lastAt(dir.file('flood-0.ts')), undefined);
});

test('a publish over the diagnostics bound is kept alone; republishing replaces', T, () => {
  const store = new DiagnosticsStore({ maxFiles: 100, maxDiagnostics: 10 });
  const a = dir.file('a.ts');
  const b = dir.file('b.ts');
  store.publish({ uri: uriOf(a), diagnostics: [diag('1')] });
  store.publish({ uri: uriOf(b), diagnostics: Array.from({ length: 50 }, () => diag('x')) });
  assert.deepEqual(store.size, { files: 1, diagnostics: 50 });
  assert.equal(store.withoutVersion(a), undefined);
  for (let i = 0; i < 1000; i++) store.publish({ uri: uriOf(a), diagnostics: [diag(`${i}`)] });
  for (let i = 0; i < 1000; i++)
    store.publish({ uri: uriOf(a), version: i, diagnostics: [diag(`${i}`), diag('v')] });
  assert.deepEqual(store.size, { files: 1, diagnostics: 3 });
  assert.equal(store.withVersion(a)?.version, 999);
});

test('a file an agent waits on is kept while a flood for other files passes', T, async () => {
  // A versioned server: the answer is the publish of the synced version, whatever came between.
  const { deps, documents } = setup();
  const store = new DiagnosticsStore({
    maxFiles: 50,
    keep: (f) => documents.get(f) !== undefined,
  });
  const d: DiagnosticsDeps = { ...deps, store };
  const file = dir.file('kept.ts');
  writeFileSync(file, 'const x = 1;');
  store.publish({ uri: uriOf(dir.file('first.ts')), version: 1, diagnostics: [] });
  const answer = currentDiagnostics(d, file, 5000);
  const doc = await until('the file to be synced', () => documents.get(file));
  store.publish({ uri: uriOf(file), version: doc.version, diagnostics: [diag('kept')] });
  for (let i = 0; i < 10_000; i++)
    store.publish({ uri: uriOf(dir.file(`other-${i}.ts`)), version: 1, diagnostics: [diag('o')] });
  assert.deepEqual(messages(await answer), ['kept']);
  assert.ok(store.size.files <= 50);
  documents.dispose();
});

// Rule 2 and the hostile servers of rules 1–3.

/** A tsserver diagnostic (1-based line and offset) and tsserver's response around a list. */
const tsDiag = (line: number, text: string, code: number, category: string) => ({
  start: { line, offset: 3 },
  end: { line, offset: 7 },
  text,
  code,
  category,
});
const tsResponse = (body: unknown[]) => ({ seq: 0, type: 'response', success: true, body });

/**
 * A typescript-language-server's `typescript.tsserverRequest`, answered from the text the
 * client synced last (what tsserver has when it reads the request): an error per line with
 * ERROR (semantic), a suggestion per line with `unused`, none of syntax.
 */
function tsserverHandler(asked: Array<{ kind: string; file: string }> = []): Handler {
  return (method, params, { documents }) => {
    assert.equal(method, 'workspace/executeCommand');
    const { command, arguments: args } = params as {
      command: string;
      arguments: [string, { file: string }, unknown];
    };
    assert.equal(command, TSSERVER_REQUEST);
    const [kind, { file }] = args;
    asked.push({ kind, file });
    const text = documents.get(pathOf(file) ?? '')?.text ?? '';
    const lines = text.split('\n');
    const pick = (needle: string, code: number, category: string) =>
      lines.flatMap((l, i) => (l.includes(needle) ? [tsDiag(i + 1, needle, code, category)] : []));
    if (kind === 'syntacticDiagnosticsSync') return Promise.resolve(tsResponse([]));
    if (kind === 'semanticDiagnosticsSync')
      return Promise.resolve(tsResponse(pick('ERROR', 2322, 'error')));
    return Promise.resolve(
      tsResponse([...pick('unused', 6133, 'suggestion'), ...pick('ignored', 7044, 'suggestion')]),
    );
  };
}

test(
  'command pull (rule 2): tsserver’s kinds for the synced content, converted as the server publishes them, with no publish waited for',
  T,
  async () => {
    const kinds: Array<{ kind: string; file: string }> = [];
    const { documents, deps, sent } = setup({
      command: true,
      handler: tsserverHandler(kinds),
      settings: { diagnostics: { ignoredCodes: [7044] } },
    });
    const file = dir.file('cmd.ts');
    writeFileSync(file, 'ok\nERROR here\nlet unused = 1; // ignored\n');
    // The server publishes nothing at all: an answer that waited for a publish never comes.
    const first = await currentDiagnostics(deps, file, 5000);
    assert.equal(first.state, 'current');
    assert.deepEqual(first.state === 'current' ? first.diagnostics : [], [
      {
        range: { start: { line: 1, character: 2 }, end: { line: 1, character: 6 } },
        message: 'ERROR',
        severity: 1,
        code: 2322,
        source: 'typescript',
      },
      {
        range: { start: { line: 2, character: 2 }, end: { line: 2, character: 6 } },
        message: 'unused',
        severity: 4,
        code: 6133,
        source: 'typescript',
      },
    ]);
    assert.deepEqual(
      kinds.map((k) => k.kind),
      ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync', 'suggestionDiagnosticsSync'],
    );
    assert.ok(kinds.every((k) => k.file === uriOf(file)));
    // The fix: a change is enough (no close and re-open, no barrier), and the error is gone.
    writeFileSync(file, 'ok\nfixed\n');
    const second = await currentDiagnostics(deps, file, 5000);
    assert.deepEqual(messages(second), []);
    assert.equal(second.document.text, 'ok\nfixed\n');
    assert.deepEqual(sent, ['textDocument/didOpen', 'textDocument/didChange']);
    documents.dispose();
  },
);

test(
  'command pull: with `preferences.disableSuggestions` suggestions are not asked for',
  T,
  async () => {
    const kinds: Array<{ kind: string; file: string }> = [];
    const { documents, deps } = setup({
      command: true,
      handler: tsserverHandler(kinds),
      initializationOptions: { preferences: { disableSuggestions: true } },
    });
    const file = dir.file('nosuggest.ts');
    writeFileSync(file, 'ERROR\nlet unused = 1;\n');
    assert.deepEqual(messages(await currentDiagnostics(deps, file, 5000)), ['ERROR']);
    assert.deepEqual(
      kinds.map((k) => k.kind),
      ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync'],
    );
    documents.dispose();
  },
);

test(
  'command pull: publishes for the old content, before and after the sync, a flood of them, never count',
  T,
  async () => {
    const answer = tsserverHandler();
    const file = dir.file('stale.ts');
    const { store, documents, deps } = setup({
      command: true,
      handler: (method, params, client) => {
        // While it takes the request in, the server publishes what it had for the old content.
        for (let i = 0; i < 1000; i++)
          client.store.publish({ uri: uriOf(file), diagnostics: [diag('stale')] });
        return answer(method, params, client);
      },
    });
    writeFileSync(file, 'ERROR\n');
    store.publish({ uri: uriOf(file), diagnostics: [diag('stale')] });
    assert.deepEqual(messages(await currentDiagnostics(deps, file, 5000)), ['ERROR']);
    writeFileSync(file, 'clean\n');
    assert.deepEqual(messages(await currentDiagnostics(deps, file, 5000)), []);
    documents.dispose();
  },
);

test(
  'command pull refused, failed or malformed: the publishes answer instead (rule 4), within the bound',
  T,
  async () => {
    const refusals: Array<() => Promise<unknown>> = [
      () => Promise.reject(new LspError('response', 'no such command', { code: 1 })),
      () => Promise.resolve({ type: 'response', success: false, message: 'No Project.' }),
      () => Promise.resolve(tsResponse([{ start: { line: 0 }, text: 7 }])),
      () => Promise.resolve(null),
    ];
    for (const [i, refuse] of refusals.entries()) {
      const file = dir.file(`refused-${i}.ts`);
      const { documents, deps, asked } = setup({
        command: true,
        handler: (method, _params, { store }) => {
          if (method === 'workspace/executeCommand') return refuse();
          // The barrier's answer: the server has the open; it publishes a moment later.
          setTimeout(
            () => store.publish({ uri: uriOf(file), diagnostics: [diag(`published ${i}`)] }),
            10,
          );
          return Promise.resolve([]);
        },
      });
      writeFileSync(file, 'x');
      assert.deepEqual(messages(await currentDiagnostics(deps, file, 5000)), [`published ${i}`]);
      assert.ok(asked.includes('textDocument/documentSymbol'), `refusal ${i}: rule 4's barrier`);
      documents.dispose();
    }
  },
);

test(
  'pull (rule 1): a server that cancels every time is "analysing" at the bound, never what it published',
  T,
  async () => {
    const { store, documents, deps, asked } = setup({
      pull: true,
      handler: () => Promise.reject(new LspError('response', 'busy', { code: -32802 })),
    });
    const file = dir.file('cancels.ts');
    writeFileSync(file, 'x');
    store.publish({ uri: uriOf(file), diagnostics: [diag('published')] });
    const t0 = Date.now();
    const answer = await currentDiagnostics(deps, file, 600);
    assert.equal(answer.state, 'analysing');
    assert.ok(Date.now() - t0 < 3000, `bounded: ${Date.now() - t0} ms`);
    assert.ok(asked.length >= 2, `asked again while time was left: ${asked.length}`);
    documents.dispose();
  },
);

test(
  'pull: an error answer is the asker’s error at once; an answer that is not a full report is never "no diagnostics"',
  T,
  async () => {
    const answers: Array<() => Promise<unknown>> = [
      () => Promise.reject(new LspError('response', 'internal error', { code: -32603 })),
      () => Promise.resolve({ kind: 'unchanged', resultId: '1' }),
      () => Promise.resolve(null),
      () => Promise.resolve({ kind: 'full', items: 'none' }),
    ];
    for (const [i, answer] of answers.entries()) {
      const { documents, deps } = setup({ pull: true, handler: answer });
      const file = dir.file(`pull-error-${i}.ts`);
      writeFileSync(file, 'x');
      const t0 = Date.now();
      await assert.rejects(currentDiagnostics(deps, file, 10_000), LspError, `answer ${i}`);
      assert.ok(Date.now() - t0 < 2000, `at once: ${Date.now() - t0} ms`);
      documents.dispose();
    }
  },
);

test(
  'versioned: a late publish for the old version neither counts nor hides the current one',
  T,
  async () => {
    const { store, documents, deps } = setup();
    const file = dir.file('late.ts');
    const uri = uriOf(file);
    store.publish({ uri: uriOf(dir.file('other.ts')), version: 1, diagnostics: [] });
    writeFileSync(file, 'one');
    const doc = await documents.sync(file);
    writeFileSync(file, 'two');
    const newer = await documents.sync(file);
    assert.ok(newer.version > doc.version);
    store.publish({ uri, version: newer.version, diagnostics: [diag('current')] });
    // Computed for the old content, it comes last.
    store.publish({ uri, version: doc.version, diagnostics: [diag('old')] });
    assert.deepEqual(messages(await currentDiagnostics(deps, file, 1000)), ['current']);
    documents.dispose();
  },
);

test(
  'unversioned: publishes that never stop are "analysing" at the bound; once they stop, the last answers',
  T,
  async () => {
    const { store, documents, deps, asked } = setup();
    const file = dir.file('flood.ts');
    const uri = uriOf(file);
    writeFileSync(file, 'x');
    let n = 0;
    let flooding = false;
    const timer = setInterval(() => {
      if (flooding) store.publish({ uri, diagnostics: [diag(`pass ${++n}`)] });
    }, 5);
    try {
      const answer = currentDiagnostics(deps, file, 800);
      await barrierAnswered(asked);
      flooding = true;
      const t0 = Date.now();
      assert.equal((await answer).state, 'analysing');
      assert.ok(Date.now() - t0 < 3000, `bounded: ${Date.now() - t0} ms`);
      flooding = false;
      const last = n;
      assert.deepEqual(messages(await currentDiagnostics(deps, file, 5000)), [`pass ${last}`]);
    } finally {
      clearInterval(timer);
      documents.dispose();
    }
  },
);
