/**
 * A small multi-file TypeScript project, written into a fresh temp dir per test file, and a
 * way to find a spot in it as an editor shows it (1-based line, column in code points).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const FILES: Readonly<Record<string, string>> = {
  'tsconfig.json': JSON.stringify(
    {
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'ES2022',
        moduleResolution: 'bundler',
        lib: ['ES2022'],
        noEmit: true,
        types: [],
      },
      include: ['src'],
    },
    null,
    2,
  ),
  'src/shapes.ts': [
    'export interface Shape {',
    '  area(): number;',
    '}',
    '',
    'export class Circle implements Shape {',
    '  constructor(readonly radius: number) {}',
    '',
    '  area(): number {',
    '    return Math.PI * this.radius ** 2;',
    '  }',
    '}',
    '',
    '/** The sum of the areas of `shapes`. */',
    'export function totalArea(shapes: Shape[]): number {',
    '  return shapes.reduce((sum, s) => sum + s.area(), 0);',
    '}',
    '',
  ].join('\n'),
  'src/main.ts': [
    "import { Circle, totalArea } from './shapes.js';",
    '',
    'const circles = [new Circle(1), new Circle(2)];',
    'export const total = totalArea(circles);',
    'export const again = totalArea([new Circle(3)]);',
    '',
  ].join('\n'),
  // Non-ASCII and astral characters before identifiers, CRLF line ends: positions must still
  // land on the right character.
  'src/unicode.ts': [
    "export const größe = '😀🎉 héllo';",
    "export const label = '🎉🎉🎉' + größe + '名前' + größe;",
    '',
  ].join('\r\n'),
};

export function writeProject(root: string): void {
  for (const [name, text] of Object.entries(FILES)) {
    const file = path.join(root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

/**
 * Where the `occurrence`-th (from 1) `needle` starts in `text`, as an editor shows it, plus
 * `offset` columns.
 */
export function spot(
  text: string,
  needle: string,
  occurrence = 1,
  offset = 0,
): { line: number; column: number } {
  let index = -1;
  for (let i = 0; i < occurrence; i += 1) {
    index = text.indexOf(needle, index + 1);
    if (index < 0) throw new Error(`"${needle}" #${occurrence} is not in the text`);
  }
  const before = text.slice(0, index).split(/\r\n|\r|\n/);
  return { line: before.length, column: [...before[before.length - 1]].length + 1 + offset };
}
