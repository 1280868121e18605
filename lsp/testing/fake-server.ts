/**
 * A scriptable language server for the client's tests, run as its own process:
 * `node fake-server.js MODE`. It behaves well or badly on purpose, deterministically.
 *
 * Modes:
 * - `normal`: answers initialize; on `initialized` asks the client every server→client request
 *   the client must answer and records the answers; records the notifications it gets; answers
 *   the `fake/*` requests below; `shutdown` and `exit` as the spec says.
 * - `garbage`: like normal, after writing lines that are not LSP to stdout first.
 * - `silent`: reads everything, answers nothing (initialize never returns).
 * - `crash`: writes a line to stderr and exits with code 3 at once.
 * - `endless-header`: writes a header that never ends, then nothing.
 * - `stubborn`: like normal, but ignores `shutdown`, `exit`, SIGTERM and the end of its stdin.
 *
 * Requests (normal): `fake/state` → what was recorded; `fake/hang` → never answered;
 * `fake/huge` `{ bytes }` → a result of that many bytes; `fake/garbage` → writes garbage, then
 * answers `"ok"`; `fake/child` → starts a child process in the server's group, answers its pid;
 * `fake/escapee` → starts a child that leaves the group with `setsid` (node's `detached`) and
 * that the server does not wait for, answers its pid;
 * `fake/publish` `{ uri, version? }` → publishes one diagnostic; `fake/flood` `{ publishes,
 * diagnostics, registrations }` → publishes `diagnostics` diagnostics for each of `publishes`
 * made-up files, asks `registrations` registrations with ids of their own, and answers how many
 * of those the client accepted and refused; `textDocument/diagnostic`
 * (pull, registered at `initialized`) → an error for each line of the document with `ERROR`;
 * `fake/work` `{ token, title }` → creates a work-done progress token and begins it with that
 * title, then answers; `fake/workDone` `{ token }` → ends it;
 * `textDocument/references` → a location for each `x` in the document; `textDocument/definition`
 * → a location at the start of each file the document names on a line of its own (`file:///…`),
 * as a hostile server may answer; `workspace/symbol`
 * `{ query: "manyN" }` → N functions `fnI` in the workspace's `symbols.txt`, none for other
 * queries.
 */
import { spawn } from 'node:child_process';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type InitializeResult,
} from 'vscode-languageserver-protocol/node';

const mode = process.argv[2] ?? 'normal';

if (mode === 'crash') {
  process.stderr.write('fake-server: missing config file fake.toml\n');
  process.exit(3);
}
if (mode === 'endless-header') {
  process.stdout.write('Content-Length: 10\r\nX-Padding: ');
  // One long header line, written in pieces, never ended.
  const piece = 'x'.repeat(64 * 1024);
  let written = 0;
  const more = (): void => {
    if (written >= 4 * 1024 * 1024) return;
    written += piece.length;
    process.stdout.write(piece, more);
  };
  more();
  process.stdin.resume();
} else if (mode === 'silent') {
  process.stdin.resume();
} else {
  serve();
}

function serve(): void {
  if (mode === 'stubborn') {
    process.on('SIGTERM', () => undefined);
    // A server that outlives its client: only a signal it cannot ignore ends it.
    setInterval(() => undefined, 60_000);
  }
  if (mode === 'garbage') process.stdout.write('starting fake server...\nDebug: {not json}\n');
  const rpc = createMessageConnection(
    new StreamMessageReader(process.stdin),
    new StreamMessageWriter(process.stdout),
  );
  const state = {
    initializeParams: undefined as unknown,
    answers: {} as Record<string, unknown>,
    notifications: [] as Array<{ method: string; params: unknown }>,
    configurationAnswers: [] as unknown[],
  };
  const ask = async (name: string, method: string, params: unknown): Promise<void> => {
    try {
      state.answers[name] = { result: await rpc.sendRequest(method, params) };
    } catch (err) {
      const e = err as { code?: number; message?: string };
      state.answers[name] = { error: { code: e.code, message: e.message } };
    }
  };
  rpc.onRequest('initialize', (params) => {
    state.initializeParams = params;
    const result: InitializeResult = {
      capabilities: {
        textDocumentSync: 1,
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        workspaceSymbolProvider: true,
        positionEncoding: 'utf-16',
      },
      serverInfo: { name: 'fake-server', version: '1.0' },
    };
    return result;
  });
  rpc.onNotification('initialized', () => {
    void (async () => {
      await ask('configuration', 'workspace/configuration', {
        items: [{ section: 'fake' }, { section: 'fake.nested' }, { section: 'absent' }, {}],
      });
      await ask('registerCapability', 'client/registerCapability', {
        registrations: [{ id: 'r1', method: 'textDocument/diagnostic', registerOptions: {} }],
      });
      await ask('workDoneProgressCreate', 'window/workDoneProgress/create', { token: 't1' });
      await ask('showMessageRequest', 'window/showMessageRequest', {
        type: 3,
        message: 'Reload the project?',
        actions: [{ title: 'Yes' }],
      });
      await ask('applyEdit', 'workspace/applyEdit', {
        label: 'fix all',
        edit: { changes: { 'file:///tmp/x.ts': [] } },
      });
      await ask('workspaceFolders', 'workspace/workspaceFolders', null);
      await ask('unknown', 'fake/unknownClientMethod', {});
    })();
  });
  rpc.onNotification((method: string, params: unknown) => {
    state.notifications.push({ method, params });
    if (method === 'workspace/didChangeConfiguration') {
      void rpc
        .sendRequest('workspace/configuration', { items: [{ section: 'fake' }] })
        .then((answer) => state.configurationAnswers.push(answer));
    }
  });
  rpc.onRequest('fake/state', () => state);
  rpc.onRequest('fake/hang', () => new Promise(() => undefined));
  rpc.onRequest('fake/huge', (params: { bytes: number }) => 'x'.repeat(params.bytes));
  rpc.onRequest('fake/garbage', () => {
    process.stdout.write('oops: a stray log line\n');
    process.stdout.write('Content-Length: nonsense\r\n\r\n');
    return 'ok';
  });
  rpc.onRequest('fake/child', () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    return child.pid ?? null;
  });
  rpc.onRequest('fake/escapee', () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
      detached: true,
    });
    child.unref();
    return child.pid ?? null;
  });
  rpc.onRequest('fake/work', async (p: { token: string; title: string }) => {
    await rpc.sendRequest('window/workDoneProgress/create', { token: p.token });
    await rpc.sendNotification('$/progress', {
      token: p.token,
      value: { kind: 'begin', title: p.title },
    });
    return null;
  });
  rpc.onRequest('fake/workDone', async (p: { token: string }) => {
    await rpc.sendNotification('$/progress', { token: p.token, value: { kind: 'end' } });
    return null;
  });
  rpc.onRequest('fake/publish', (params: { uri: string; version?: number }) => {
    void rpc.sendNotification('textDocument/publishDiagnostics', {
      uri: params.uri,
      ...(params.version !== undefined ? { version: params.version } : {}),
      diagnostics: [
        {
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
          message: 'x',
        },
      ],
    });
    return null;
  });
  rpc.onRequest(
    'fake/flood',
    async (p: { publishes: number; diagnostics: number; registrations: number }) => {
      const diagnostic = {
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
        message: 'flood',
      };
      const many = Array.from({ length: p.diagnostics }, () => diagnostic);
      for (let i = 0; i < p.publishes; i++)
        void rpc.sendNotification('textDocument/publishDiagnostics', {
          uri: `file:///flood/file-${i}.txt`,
          diagnostics: many,
        });
      const outcomes = await Promise.allSettled(
        Array.from({ length: p.registrations }, (_, i) =>
          rpc.sendRequest('client/registerCapability', {
            registrations: [{ id: `flood-${i}`, method: 'workspace/didChangeWatchedFiles' }],
          }),
        ),
      );
      return {
        accepted: outcomes.filter((o) => o.status === 'fulfilled').length,
        refused: outcomes.filter((o) => o.status === 'rejected').length,
      };
    },
  );
  // Pull diagnostics (registered at initialized): one error per line that says ERROR, of the
  // text as the server has it.
  const texts = new Map<string, string>();
  rpc.onNotification(
    'textDocument/didOpen',
    (p: { textDocument: { uri: string; text: string } }) => {
      state.notifications.push({ method: 'textDocument/didOpen', params: p });
      texts.set(p.textDocument.uri, p.textDocument.text);
    },
  );
  rpc.onNotification(
    'textDocument/didChange',
    (p: { textDocument: { uri: string }; contentChanges: Array<{ text: string }> }) => {
      state.notifications.push({ method: 'textDocument/didChange', params: p });
      texts.set(p.textDocument.uri, p.contentChanges.at(-1)!.text);
    },
  );
  rpc.onRequest('textDocument/diagnostic', (p: { textDocument: { uri: string } }) => ({
    kind: 'full',
    items: (texts.get(p.textDocument.uri) ?? '').split('\n').flatMap((line, n) =>
      line.includes('ERROR')
        ? [
            {
              range: { start: { line: n, character: 0 }, end: { line: n, character: line.length } },
              message: `error on line ${n + 1}`,
              severity: 1,
            },
          ]
        : [],
    ),
  }));
  rpc.onRequest('textDocument/hover', () => ({ contents: { kind: 'plaintext', value: 'fake' } }));
  rpc.onRequest('textDocument/references', (p: { textDocument: { uri: string } }) =>
    (texts.get(p.textDocument.uri) ?? '').split('\n').flatMap((line, n) =>
      [...line.matchAll(/x/g)].map((m) => ({
        uri: p.textDocument.uri,
        range: {
          start: { line: n, character: m.index },
          end: { line: n, character: m.index + 1 },
        },
      })),
    ),
  );
  rpc.onRequest('textDocument/definition', (p: { textDocument: { uri: string } }) =>
    (texts.get(p.textDocument.uri) ?? '')
      .split('\n')
      .filter((line) => line.startsWith('file:'))
      .map((uri) => ({
        uri,
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
      })),
  );
  rpc.onRequest('workspace/symbol', (p: { query: string }) => {
    const n = Number(/^many(\d+)$/.exec(p.query)?.[1] ?? 0);
    const root = (state.initializeParams as { rootUri: string }).rootUri;
    return Array.from({ length: n }, (_, i) => ({
      name: `fn${i}`,
      kind: 12,
      location: {
        uri: `${root}/symbols.txt`,
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
      },
    }));
  });
  rpc.onRequest('shutdown', () => (mode === 'stubborn' ? new Promise(() => undefined) : null));
  rpc.onNotification('exit', () => {
    if (mode !== 'stubborn') process.exit(0);
  });
  rpc.listen();
}
