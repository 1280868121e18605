// Diagnostics torture: one file rewritten on disk 20 times (errors added, fixed, moved, the
// same content again, clean to clean), one warm typescript-language-server (which publishes
// without versions). Every answer must be about the content on disk at the time of the call,
// by both of the rules diagnostics.ts has for it: pulled through its tsserver command (rule 2,
// the default) and read from its publishes (rule 4); and both answer the same diagnostics.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { LspConnection } from './connection.js';
import { diagnostics, hover, type DiagnosticView, type DiagnosticsView } from './requests.js';
import { typescriptServer } from './testing/servers.js';
import { writeProject } from './testing/typescript-project.js';

const LINES = 12;

/** The file with a type error (TS2322) on each of `errorLines` (1-based); `tag` varies the rest. */
function content(errorLines: readonly number[], tag: string): string {
  const lines: string[] = [];
  for (let n = 1; n <= LINES; n += 1) {
    lines.push(
      errorLines.includes(n)
        ? `export const e${n}: number = 'not a number ${tag}';`
        : `export const v${n}_${tag} = ${n};`,
    );
  }
  return lines.join('\n') + '\n';
}

/** Each step: the lines with an error, and whether to ask something else first. */
const STEPS: ReadonlyArray<{
  errors: number[];
  tag: string;
  hoverFirst?: boolean;
  twice?: boolean;
}> = [
  { errors: [3], tag: 'a' },
  { errors: [3], tag: 'a' }, // the very same content again
  { errors: [5, 9], tag: 'b', hoverFirst: true }, // moved and added, synced by a hover first
  { errors: [], tag: 'c' }, // fixed
  { errors: [], tag: 'd' }, // clean to clean, other content
  { errors: [2], tag: 'e', twice: true }, // written twice before the question
  { errors: [2, 4, 6, 8], tag: 'f' },
  { errors: [8], tag: 'g', hoverFirst: true },
  { errors: [], tag: 'h', hoverFirst: true },
  { errors: [1], tag: 'i' },
  { errors: [12], tag: 'j' },
  { errors: [], tag: 'k' },
  { errors: [], tag: 'k' }, // clean, same content again
  { errors: [4, 5], tag: 'l', twice: true },
  { errors: [10], tag: 'm', hoverFirst: true },
  { errors: [], tag: 'n' },
  { errors: [7], tag: 'o' },
  { errors: [7], tag: 'p', hoverFirst: true },
  { errors: [1, 12], tag: 'q' },
  { errors: [], tag: 'r' },
];

function errorLines(view: DiagnosticsView): number[] {
  assert.equal(view.state, 'current', JSON.stringify(view));
  if (view.state !== 'current') return [];
  for (const d of view.diagnostics) {
    assert.equal(d.severity, 'error', JSON.stringify(d));
    assert.equal(d.code, 2322, JSON.stringify(d));
  }
  return view.diagnostics.map((d) => d.line).sort((a, b) => a - b);
}

/** The two rules of diagnostics.ts for this server; their answers to KINDS, compared. */
const RULES = [
  { name: 'rule 2, its tsserver command', serverCommand: true },
  { name: 'rule 4, its publishes', serverCommand: false },
] as const;
const answered = new Map<string, readonly DiagnosticView[]>();

/** A syntax error (TS1005), a type error (TS2322) and an unused local (TS6133, a suggestion). */
const KINDS = [
  "export const n: number = 'text';",
  'export function f(): number {',
  '  const unused = 1;',
  '  return (1 + 2;',
  '}',
  '',
].join('\n');

for (const rule of RULES) {
  describe(`diagnostics of typescript-language-server, file rewritten 20 times (${rule.name})`, () => {
    let dir: TempDir;
    let conn: LspConnection;

    before(async () => {
      dir = tempDir('mcpctl-lsp-torture-');
      writeProject(dir.path);
      conn = new LspConnection(
        typescriptServer(dir.path, { diagnosticsServerCommand: rule.serverCommand }),
      );
      await conn.open();
    });

    after(async () => {
      await conn.close();
      dir.remove();
    });

    test(
      'every answer matches the content on disk at the time of the call',
      { timeout: 120_000 },
      async () => {
        const file = 'src/torture.ts';
        for (const [i, step] of STEPS.entries()) {
          if (step.twice) writeFileSync(dir.file(file), content([1, 2, 3], `${step.tag}-before`));
          const text = content(step.errors, step.tag);
          writeFileSync(dir.file(file), text);
          if (step.hoverFirst) await hover(conn, { file, line: 1, column: 14 });
          const view = await diagnostics(conn, { file }, { timeoutMs: 20_000 });
          assert.deepEqual(errorLines(view), step.errors, `step ${i + 1}: ${JSON.stringify(view)}`);
          assert.equal(view.file, file);
          // The version answered for is the content written.
          assert.equal(conn.documents.get(dir.file(file))?.text, text);
          assert.equal(conn.documents.get(dir.file(file))?.version, view.version);
        }
      },
    );

    test(
      'no answer within the bound says "analysing", never an older answer',
      { timeout: 60_000 },
      async () => {
        const file = 'src/torture.ts';
        writeFileSync(dir.file(file), content([6], 'bound'));
        const quick = await diagnostics(conn, { file }, { timeoutMs: 1 });
        assert.equal(quick.state, 'analysing', JSON.stringify(quick));
        assert.match(
          quick.state === 'analysing' ? quick.message : '',
          /still analysing src\/torture\.ts/,
        );
        assert.deepEqual(errorLines(await diagnostics(conn, { file }, { timeoutMs: 20_000 })), [6]);
      },
    );

    test(
      'syntax, semantic and suggestion diagnostics: the same answer by either rule',
      { timeout: 60_000 },
      async () => {
        const file = 'src/kinds.ts';
        writeFileSync(dir.file(file), KINDS);
        const view = await diagnostics(conn, { file }, { timeoutMs: 20_000 });
        assert.equal(view.state, 'current', JSON.stringify(view));
        const seen = view.state === 'current' ? view.diagnostics : [];
        assert.deepEqual(
          seen.map((d) => `${d.severity}:${d.code}`).sort(),
          ['error:1005', 'error:2322', 'hint:6133'],
          JSON.stringify(seen),
        );
        answered.set(rule.name, seen);
        const other = answered.get(RULES.find((r) => r !== rule)!.name);
        if (other) assert.deepEqual(seen, other);
      },
    );
  });
}
