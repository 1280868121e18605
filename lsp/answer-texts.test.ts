import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sizeText } from '../api/index.js';
import { makeFifo, releaseReaders } from '../testing/fifo.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { MAX_QUOTED_BYTES } from './answer-limits.js';
import { LspConnection } from './connection.js';
import { definition, type LocationView } from './requests.js';
import { fakeServer } from './testing/servers.js';
import { uriOf } from './workspace-files.js';

const T = { timeout: 30_000 };
const SECRET = 'aws_secret_access_key = wJalrXUtnFEMI';

/**
 * The fake server answers a definition with a location at the start of each file named by a
 * line of the asked document (fake-server.ts): a hostile server, or a benign one that follows
 * what the repository holds.
 */
describe('the lines an answer quotes', () => {
  let ws: TempDir;
  let outside: TempDir;
  let conn: LspConnection;
  const fifos: string[] = [];

  before(async () => {
    ws = tempDir('mcpctl-lsp-quote-');
    outside = tempDir('mcpctl-lsp-quote-outside-');
    writeFileSync(outside.file('credentials'), `${SECRET}\n`);
    conn = new LspConnection(fakeServer(ws.path, 'normal', { documents: { maxFileBytes: 4096 } }));
    await conn.open();
  });

  after(async () => {
    releaseReaders(fifos);
    await conn.close();
    ws.remove();
    outside.remove();
  });

  /** Asks for the definitions in a document naming `targets` (paths or URIs). */
  async function locationsAt(...targets: string[]): Promise<LocationView[]> {
    const lines = targets.map((t) => (t.startsWith('file:') ? t : uriOf(t)));
    writeFileSync(ws.file('ask.txt'), `${lines.join('\n')}\n`);
    return (await definition(conn, { file: 'ask.txt', line: 1, column: 1 })).locations;
  }

  const WHERE = { line: 1, column: 1, endLine: 1, endColumn: 2 };

  test('a file of the workspace is quoted, also through a link inside it', T, async () => {
    writeFileSync(ws.file('ok.txt'), '  hello world  \nsecond\n');
    symlinkSync(ws.file('ok.txt'), ws.file('alias.txt'));
    assert.deepEqual(await locationsAt(ws.file('ok.txt'), ws.file('alias.txt')), [
      { file: 'ok.txt', ...WHERE, text: 'hello world' },
      { file: 'alias.txt', ...WHERE, text: 'hello world' },
    ]);
  });

  test('a location in a FIFO is answered at once, without text', T, async () => {
    const fifo = ws.file('pipe.txt');
    makeFifo(fifo);
    fifos.push(fifo);
    assert.deepEqual(await locationsAt(fifo), [{ file: 'pipe.txt', ...WHERE }]);
  });

  test('a location at /dev/zero is answered without reading it', T, async () => {
    assert.deepEqual(await locationsAt('file:///dev/zero'), [{ file: '/dev/zero', ...WHERE }]);
  });

  test('no line is quoted from a file outside the workspace, however it is named', T, async () => {
    symlinkSync(outside.file('credentials'), ws.file('creds.txt'));
    symlinkSync(outside.path, ws.file('conf'));
    const locations = await locationsAt(
      ws.file('creds.txt'),
      ws.file('conf/credentials'),
      outside.file('credentials'),
    );
    assert.deepEqual(locations, [
      { file: 'creds.txt', ...WHERE },
      { file: 'conf/credentials', ...WHERE },
      { file: outside.file('credentials'), ...WHERE },
    ]);
    assert.ok(!JSON.stringify(locations).includes('wJalr'), 'the secret is not in the answer');
  });

  test('a file over the documents limit is not read', T, async () => {
    writeFileSync(ws.file('big.txt'), `${'x'.repeat(5000)}\n`);
    assert.deepEqual(await locationsAt(ws.file('big.txt')), [{ file: 'big.txt', ...WHERE }]);
  });
});

describe('the bytes one answer reads', () => {
  let ws: TempDir;
  let conn: LspConnection;

  before(async () => {
    ws = tempDir('mcpctl-lsp-quote-budget-');
    conn = new LspConnection(fakeServer(ws.path, 'normal'));
    await conn.open();
  });

  after(async () => {
    await conn.close();
    ws.remove();
  });

  test(`at most ${sizeText(MAX_QUOTED_BYTES)}: files past it are not quoted`, T, async () => {
    // Sparse files (no disk used), each well within the documents limit, together over the cap.
    const size = Math.floor(MAX_QUOTED_BYTES / 2.5);
    const names = ['a.txt', 'b.txt', 'c.txt'];
    mkdirSync(ws.file('big'));
    for (const name of names) {
      writeFileSync(ws.file(`big/${name}`), 'first line\n');
      truncateSync(ws.file(`big/${name}`), size);
    }
    writeFileSync(
      ws.file('ask.txt'),
      `${names.map((n) => uriOf(ws.file(`big/${n}`))).join('\n')}\n`,
    );
    const { locations } = await definition(conn, { file: 'ask.txt', line: 1, column: 1 });
    assert.deepEqual(
      locations.map((l) => [l.file, l.text]),
      [
        ['big/a.txt', 'first line'],
        ['big/b.txt', 'first line'],
        ['big/c.txt', undefined],
      ],
    );
  });
});
