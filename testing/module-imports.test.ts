import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importsOf, isBare, packageOf } from './module-imports.js';

describe('importsOf', () => {
  it('finds every way a built module loads another, in source order', () => {
    const text = [
      `import { a } from 'pkg-a';`,
      `import 'pkg-b/side-effect.js';`,
      `export { c } from '@scope/pkg-c/sub/index.js';`,
      `export * from './local.js';`,
      `const lazy = createRequire(import.meta.url);`,
      `const d = await import("pkg-d");`,
      'const e = lazy(`pkg-e`);',
      `const f = require('pkg-f');`,
    ].join('\n');
    assert.deepEqual(importsOf('x.js', text), {
      specifiers: [
        'pkg-a',
        'pkg-b/side-effect.js',
        '@scope/pkg-c/sub/index.js',
        './local.js',
        'pkg-d',
        'pkg-e',
        'pkg-f',
      ],
      unknown: [],
    });
  });

  it('reports a load whose name is computed, and ignores strings and comments that name a package', () => {
    const text = [
      `// import x from 'in-a-comment';`,
      `const message = "import y from 'in-a-string'";`,
      `other('not-a-load');`,
      `const name = 'pkg-' + kind;`,
      `await import(name);`,
    ].join('\n');
    assert.deepEqual(importsOf('x.js', text), { specifiers: [], unknown: ['import(name)'] });
  });

  it('a name bound to createRequire is a require even when called before its declaration', () => {
    const text = `function load() { return req('late'); }\nconst req = createRequire(import.meta.url);`;
    assert.deepEqual(importsOf('x.js', text).specifiers, ['late']);
  });
});

describe('isBare and packageOf', () => {
  it('only package names are bare', () => {
    for (const s of ['zod', 'p-queue', '@modelcontextprotocol/sdk/client/index.js', 'yaml'])
      assert.equal(isBare(s), true, s);
    for (const s of ['./x.js', '../y.js', '/abs.js', 'node:fs', 'fs', 'child_process', 'file:///x'])
      assert.equal(isBare(s), false, s);
  });

  it('names the package of a subpath, scoped or not', () => {
    assert.equal(
      packageOf('@modelcontextprotocol/sdk/client/index.js'),
      '@modelcontextprotocol/sdk',
    );
    assert.equal(packageOf('@scope/name'), '@scope/name');
    assert.equal(
      packageOf('vscode-languageserver-protocol/node.js'),
      'vscode-languageserver-protocol',
    );
    assert.equal(packageOf('zod'), 'zod');
  });
});
