// One warm typescript-language-server answers every test of this file.
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';
import { LspConnection } from './connection.js';
import { LspError } from './errors.js';
import {
  definition,
  diagnostics,
  documentSymbols,
  hover,
  references,
  rename,
  workspaceSymbols,
  type LocationView,
} from './requests.js';
import { groupAlive } from '../proc/index.js';
import { typescriptServer } from './testing/servers.js';
import { FILES, spot, writeProject } from './testing/typescript-project.js';

const T = { timeout: 60_000 };

/** A file with one type error (TS2322) on line 1. */
const OPENED = "export const opened: number = 'not a number';\n";

const brief = (l: LocationView): string =>
  `${l.file}:${l.line}:${l.column}-${l.endLine}:${l.endColumn}`;

describe('typescript-language-server on a small project', () => {
  let dir: TempDir;
  let conn: LspConnection;
  const lost: string[] = [];

  before(async () => {
    dir = tempDir('mcpctl-lsp-ts-');
    writeProject(dir.path);
    // Written before the server starts: a file created later makes tsserver publish again.
    writeFileSync(dir.file('src/opened.ts'), OPENED);
    conn = new LspConnection(typescriptServer(dir.path), { onLost: (r) => lost.push(r) });
    await conn.open();
  });

  after(async () => {
    const pid = conn.pid!;
    await conn.close();
    // tsserver runs in the server's group: the whole group is gone, nothing left behind.
    await until('the server group to be gone', () => !groupAlive(pid), { timeoutMs: 10_000 });
    assert.deepEqual(lost, []);
    dir.remove();
  });

  test('definition: from a use in one file to the declaration in another', T, async () => {
    // The server's first question (README config: its syntax server answers while the project
    // loads): the declaration, not the import line, and complete.
    const main = FILES['src/main.ts'];
    const at = spot(main, 'totalArea', 2, 2);
    const answer = await definition(conn, { file: 'src/main.ts', ...at });
    const decl = spot(FILES['src/shapes.ts'], 'totalArea');
    assert.deepEqual(answer.locations.map(brief), [
      `src/shapes.ts:${decl.line}:${decl.column}-${decl.line}:${decl.column + 'totalArea'.length}`,
    ]);
    assert.equal(answer.locations[0].text, 'export function totalArea(shapes: Shape[]): number {');
    assert.equal(answer.partial, undefined);
  });

  test(
    'diagnostics of a file an earlier question opened, after its publish: current, every time',
    // Each call would wait 10 s for a publish that had already come: the test fails first.
    { timeout: 25_000 },
    async () => {
      const kept = conn.stats().retained.diagnostics;
      await hover(conn, { file: 'src/opened.ts', line: 1, column: 14 });
      // Its type error published: the server has nothing more to say about this content.
      await until('the server to publish the error of src/opened.ts', () =>
        conn.stats().retained.diagnostics > kept ? true : undefined,
      );
      for (let ask = 1; ask <= 2; ask += 1) {
        const view = await diagnostics(conn, { file: 'src/opened.ts' }, { timeoutMs: 10_000 });
        assert.equal(view.state, 'current', `ask ${ask}: ${JSON.stringify(view)}`);
        assert.deepEqual(
          view.state === 'current' ? view.diagnostics.map((d) => `${d.line}:${d.code}`) : [],
          ['1:2322'],
        );
      }
    },
  );

  test('references: every use, declaration included unless asked otherwise', T, async () => {
    const at = spot(FILES['src/shapes.ts'], 'Circle');
    const all = await references(conn, { file: 'src/shapes.ts', ...at });
    const main = FILES['src/main.ts'];
    const expected = [
      `src/main.ts:${spot(main, 'Circle').line}:${spot(main, 'Circle').column}`,
      `src/main.ts:${spot(main, 'Circle', 2).line}:${spot(main, 'Circle', 2).column}`,
      `src/main.ts:${spot(main, 'Circle', 3).line}:${spot(main, 'Circle', 3).column}`,
      `src/main.ts:${spot(main, 'Circle', 4).line}:${spot(main, 'Circle', 4).column}`,
      `src/shapes.ts:${at.line}:${at.column}`,
    ];
    assert.deepEqual(all.locations.map((l) => `${l.file}:${l.line}:${l.column}`).sort(), expected);
    const uses = await references(conn, {
      file: 'src/shapes.ts',
      ...at,
      includeDeclaration: false,
    });
    assert.equal(uses.locations.length, 4);
    assert.ok(uses.locations.every((l) => l.file === 'src/main.ts'));
  });

  test('hover: the type and the doc comment, as text', T, async () => {
    const at = spot(FILES['src/main.ts'], 'totalArea', 2);
    const { contents } = await hover(conn, { file: 'src/main.ts', ...at });
    assert.match(contents, /totalArea\(shapes: Shape\[\]\): number/);
    assert.match(contents, /The sum of the areas of `shapes`\./);
  });

  test('document symbols: a tree with names, kinds and 1-based positions', T, async () => {
    const { symbols } = await documentSymbols(conn, { file: 'src/shapes.ts' });
    const shapes = FILES['src/shapes.ts'];
    const circle = symbols.find((s) => s.name === 'Circle');
    assert.ok(circle, JSON.stringify(symbols));
    assert.equal(circle.kind, 'Class');
    assert.deepEqual({ line: circle.line, column: circle.column }, spot(shapes, 'Circle'));
    const area = circle.children?.find((c) => c.name === 'area');
    assert.equal(area?.kind, 'Method');
    assert.deepEqual({ line: area.line, column: area.column }, spot(shapes, 'area', 2));
    assert.deepEqual(symbols.map((s) => `${s.kind} ${s.name}`).sort(), [
      'Class Circle',
      'Function totalArea',
      'Interface Shape',
    ]);
  });

  test('workspace symbols: found across files, paths relative to the workspace', T, async () => {
    const { symbols } = await workspaceSymbols(conn, { query: 'totalArea' });
    const decl = symbols.find((s) => s.name === 'totalArea' && s.kind === 'Function');
    assert.ok(decl, JSON.stringify(symbols));
    assert.equal(decl.file, 'src/shapes.ts');
    assert.deepEqual(
      { line: decl.line, column: decl.column },
      spot(FILES['src/shapes.ts'], 'totalArea'),
    );
  });

  test('rename: a preview of the edits per file; no file is written', T, async () => {
    const at = spot(FILES['src/shapes.ts'], 'totalArea');
    const { changes } = await rename(conn, { file: 'src/shapes.ts', ...at, newName: 'sumOfAreas' });
    assert.deepEqual(
      changes.map(
        (c) =>
          `${c.file}: ${c.edits.map((e) => `${e.line}:${e.column}-${e.endColumn}=${e.newText}`).join(', ')}`,
      ),
      [
        `src/main.ts: ${[1, 2, 3]
          .map((n) => spot(FILES['src/main.ts'], 'totalArea', n))
          .map((p) => `${p.line}:${p.column}-${p.column + 9}=sumOfAreas`)
          .join(', ')}`,
        `src/shapes.ts: ${at.line}:${at.column}-${at.column + 9}=sumOfAreas`,
      ],
    );
    for (const [name, text] of Object.entries(FILES))
      assert.equal(readFileSync(dir.file(name), 'utf8'), text);
  });

  test(
    'non-ASCII and emoji before an identifier, CRLF lines: positions land on the identifier',
    T,
    async () => {
      const text = FILES['src/unicode.ts'];
      // `größe` after three emoji (two UTF-16 units each) and `名前`: columns are code points.
      const use = spot(text, 'größe', 3);
      const { locations } = await definition(conn, { file: 'src/unicode.ts', ...use });
      const decl = spot(text, 'größe');
      assert.deepEqual(locations.map(brief), [
        `src/unicode.ts:${decl.line}:${decl.column}-${decl.line}:${decl.column + 5}`,
      ]);
      const refs = await references(conn, { file: 'src/unicode.ts', ...decl });
      assert.deepEqual(
        refs.locations.map((l) => `${l.line}:${l.column}-${l.endColumn}`).sort(),
        [1, 2, 3]
          .map((n) => spot(text, 'größe', n))
          .map((p) => `${p.line}:${p.column}-${p.column + 5}`)
          .sort(),
      );
    },
  );

  test(
    'a file changed on disk (by a shell, not through mcpctl) is answered as it is now',
    T,
    async () => {
      writeFileSync(dir.file('src/moved.ts'), 'export const answer = 42;\n');
      const first = await definition(conn, { file: 'src/moved.ts', line: 1, column: 14 });
      assert.deepEqual(first.locations.map(brief), ['src/moved.ts:1:14-1:20']);
      const version = conn.documents.get(dir.file('src/moved.ts'))!.version;
      // Two lines inserted above: the same question about the new content gets the new place.
      writeFileSync(dir.file('src/moved.ts'), '// one\n// two\nexport const answer = 42;\n');
      const second = await definition(conn, { file: 'src/moved.ts', line: 3, column: 14 });
      assert.deepEqual(second.locations.map(brief), ['src/moved.ts:3:14-3:20']);
      assert.ok(conn.documents.get(dir.file('src/moved.ts'))!.version > version);
    },
  );

  test('another open file changed on disk is synced before a cross-file answer', T, async () => {
    await definition(conn, { file: 'src/main.ts', line: 1, column: 10 });
    writeFileSync(
      dir.file('src/main.ts'),
      FILES['src/main.ts'] + 'export const more = totalArea([]);\n',
    );
    const at = spot(FILES['src/shapes.ts'], 'totalArea');
    const { locations } = await references(conn, { file: 'src/shapes.ts', ...at });
    assert.equal(
      locations.filter((l) => l.file === 'src/main.ts').length,
      4,
      JSON.stringify(locations),
    );
    writeFileSync(dir.file('src/main.ts'), FILES['src/main.ts']);
  });

  test(
    'what is refused: outside the workspace, a symlink out, a line past the end, no language',
    T,
    async () => {
      const outside = tempDir('mcpctl-lsp-outside-');
      try {
        writeFileSync(outside.file('x.ts'), 'export const x = 1;\n');
        symlinkSync(outside.file('x.ts'), dir.file('src/link.ts'));
        const refused = (pattern: RegExp) => (err: unknown) =>
          err instanceof LspError && err.kind === 'badRequest' && pattern.test(err.message);
        await assert.rejects(
          definition(conn, { file: '../x.ts', line: 1, column: 1 }),
          refused(/\.\.\/x\.ts is outside the workspace/),
        );
        await assert.rejects(
          definition(conn, { file: outside.file('x.ts'), line: 1, column: 1 }),
          refused(/is outside the workspace/),
        );
        await assert.rejects(
          definition(conn, { file: 'src/link.ts', line: 1, column: 1 }),
          refused(/leads outside the workspace/),
        );
        await assert.rejects(
          definition(conn, { file: 'src/main.ts', line: 99, column: 1 }),
          refused(/line 99 is past the end of src\/main\.ts \(6 lines\)/),
        );
        await assert.rejects(
          definition(conn, { file: 'src/nope.ts', line: 1, column: 1 }),
          refused(/no such file in the workspace: src\/nope\.ts/),
        );
        await assert.rejects(
          documentSymbols(conn, { file: 'tsconfig.json' }),
          refused(
            /no language server handles tsconfig\.json: the configured extensions are \.ts, \.tsx/,
          ),
        );
      } finally {
        outside.remove();
      }
    },
  );
});
