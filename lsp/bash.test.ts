// bash-language-server, a second real server: it publishes diagnostics with versions and reads
// its settings through workspace/configuration. One warm server for the file.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { LspConnection } from './connection.js';
import { diagnostics, documentSymbols, type DiagnosticsView } from './requests.js';
import { groupAlive } from '../proc/index.js';
import { bashServer } from './testing/servers.js';

const T = { timeout: 60_000 };

const SCRIPT = [
  '#!/bin/bash',
  'NAME="wörld 😀"',
  'greet() {',
  '  echo "hello $NAME"',
  '}',
  'source "$HOME/missing-$NAME.sh"',
  'greet',
  '',
].join('\n');

const sourceErrors = (view: DiagnosticsView): number[] =>
  view.state === 'current'
    ? view.diagnostics
        .filter((d) => /Source command could not be analyzed/.test(d.message))
        .map((d) => d.line)
    : [-1];

describe('bash-language-server', () => {
  let dir: TempDir;
  let conn: LspConnection;
  const lost: string[] = [];

  before(async () => {
    dir = tempDir('mcpctl-lsp-bash-');
    writeFileSync(dir.file('run.sh'), SCRIPT);
    conn = new LspConnection(
      bashServer(dir.path, { settings: { bashIde: { enableSourceErrorDiagnostics: true } } }),
      { onLost: (r) => lost.push(r) },
    );
    await conn.open();
  });

  after(async () => {
    await conn.close();
    dir.remove();
  });

  /**
   * bash-language-server finishes its own `initialized` handling asynchronously (it asks for its
   * settings first); a document opened before that is analysed a moment later, and a question
   * in between gets an empty answer. Its first answer is waited for, not taken.
   */
  const analysedSymbols = () =>
    until('bash-language-server to have analysed run.sh', async () => {
      const answer = await documentSymbols(conn, { file: 'run.sh' });
      return answer.symbols.length > 0 && answer;
    });

  test('document symbols of a shell script', T, async () => {
    const { symbols } = await analysedSymbols();
    assert.deepEqual(symbols, [
      { name: 'NAME', kind: 'Variable', line: 2, column: 1 },
      { name: 'greet', kind: 'Function', line: 3, column: 1 },
    ]);
  });

  test('versioned diagnostics follow the file on disk', T, async () => {
    assert.deepEqual(sourceErrors(await diagnostics(conn, { file: 'run.sh' })), [6]);
    writeFileSync(dir.file('run.sh'), SCRIPT.replace('greet\n', 'source "$X"\ngreet\n'));
    assert.deepEqual(sourceErrors(await diagnostics(conn, { file: 'run.sh' })), [6, 7]);
    writeFileSync(dir.file('run.sh'), '#!/bin/bash\necho fine\n');
    assert.deepEqual(sourceErrors(await diagnostics(conn, { file: 'run.sh' })), []);
    writeFileSync(dir.file('run.sh'), SCRIPT);
    assert.deepEqual(sourceErrors(await diagnostics(conn, { file: 'run.sh' })), [6]);
  });

  test('a settings edit reaches the running server: no restart', T, async () => {
    const pid = conn.pid;
    conn.setSettings({ bashIde: { enableSourceErrorDiagnostics: false } });
    // The server re-reads its settings and re-publishes the same version without the error.
    await until('the source error to be gone', async () => {
      const view = await diagnostics(conn, { file: 'run.sh' });
      return sourceErrors(view).length === 0;
    });
    assert.equal(conn.pid, pid);
    conn.setSettings({ bashIde: { enableSourceErrorDiagnostics: true } });
    await until('the source error to be back', async () => {
      const view = await diagnostics(conn, { file: 'run.sh' });
      return sourceErrors(view).length === 1;
    });
  });

  test('killed: onLost; a new process gets the open documents again and answers', T, async () => {
    const paths = conn.documents.openPaths();
    assert.deepEqual(paths, [dir.file('run.sh')]);
    const pid = conn.pid!;
    process.kill(pid, 'SIGKILL');
    await until('onLost', () => lost.length > 0);
    assert.match(lost[0], /language server "bash": the process was killed by SIGKILL/);
    await until('the old group to be gone', () => !groupAlive(pid));
    await conn.close();
    // What the pool does on a crash restart: a new connection, the old one's documents re-opened.
    conn = new LspConnection(
      bashServer(dir.path, { settings: { bashIde: { enableSourceErrorDiagnostics: true } } }),
    );
    await conn.open();
    await conn.documents.reopen(paths);
    assert.deepEqual(conn.documents.openPaths(), paths);
    assert.equal((await analysedSymbols()).symbols.length, 2);
    assert.deepEqual(sourceErrors(await diagnostics(conn, { file: 'run.sh' })), [6]);
  });
});
