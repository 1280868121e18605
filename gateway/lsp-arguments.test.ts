/**
 * The `lsp_*` tools' pure parts: their names and the arguments they take (lsp-arguments.ts).
 * Which language server answers a file is the session's (controller/lsp-questions.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LSP_TOOL_NAMES,
  MAX_NAME_CHARS,
  MAX_QUERY_CHARS,
  parseLspCall,
  type LspToolName,
} from './lsp-arguments.js';
import { LSP_TOOLS } from './lsp-tools.js';
import { META_TOOLS } from './meta-tools.js';
import { parseQualifiedName, qualifiedName } from './tool-names.js';

const T = { timeout: 10_000 };

const error = (tool: LspToolName, args: Record<string, unknown>): string => {
  const parsed = parseLspCall(tool, args);
  assert.equal(parsed.ok, false, `${tool} ${JSON.stringify(args)} was accepted`);
  return parsed.ok ? '' : parsed.error;
};

describe('lsp tool names', T, () => {
  it('are the seven of the issue, listed in that order, and no forwarded name', T, () => {
    assert.deepEqual(
      LSP_TOOLS.map((t) => t.name),
      [...LSP_TOOL_NAMES],
    );
    for (const name of LSP_TOOL_NAMES) {
      assert.match(name, /^lsp_[a-z_]+$/);
      assert.ok(!name.includes('__') && !name.startsWith('hint_'));
      assert.equal(parseQualifiedName(name), undefined);
      // A hashed forwarded name always ends in `_` and 16 hex digits.
      assert.doesNotMatch(name, /_[0-9a-f]{16}$/);
      assert.ok(!META_TOOLS.some((m) => m.name === name));
    }
    assert.notEqual(qualifiedName('lsp', 'hover'), 'lsp_hover');
  });

  it('declare an object output schema and a read-only hint', T, () => {
    for (const tool of LSP_TOOLS) {
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
      assert.ok((tool.description ?? '').length > 40, tool.name);
    }
  });
});

describe('lsp tool arguments', T, () => {
  it('accepts each tool with what it takes, and ignores the rest', T, () => {
    const at = { file: 'src/a.ts', line: 3, column: 7 };
    assert.deepEqual(parseLspCall('lsp_definition', { ...at, extra: 1 }), {
      ok: true,
      call: { tool: 'lsp_definition', args: at },
    });
    assert.deepEqual(parseLspCall('lsp_references', { ...at, includeDeclaration: false }), {
      ok: true,
      call: { tool: 'lsp_references', args: { ...at, includeDeclaration: false } },
    });
    assert.deepEqual(parseLspCall('lsp_diagnostics', { file: 'x.ts' }), {
      ok: true,
      call: { tool: 'lsp_diagnostics', args: { file: 'x.ts' } },
    });
    assert.deepEqual(parseLspCall('lsp_workspace_symbols', { query: '' }), {
      ok: true,
      call: { tool: 'lsp_workspace_symbols', args: { query: '' } },
    });
    assert.deepEqual(parseLspCall('lsp_rename', { ...at, newName: 'größe' }), {
      ok: true,
      call: { tool: 'lsp_rename', args: { ...at, newName: 'größe' } },
    });
  });

  it('names the missing or bad argument and what it must be', T, () => {
    assert.match(
      error('lsp_hover', {}),
      /^lsp_hover: file must be a path relative to the workspace.*got nothing/,
    );
    assert.match(
      error('lsp_hover', { file: 'a.ts', column: 1 }),
      /line must be a whole number from 1.*got nothing/,
    );
    assert.match(
      error('lsp_hover', { file: 'a.ts', line: -1, column: 1 }),
      /line must be a whole number from 1.*got -1/,
    );
    assert.match(error('lsp_hover', { file: 'a.ts', line: 0, column: 1 }), /line .* got 0/);
    assert.match(error('lsp_hover', { file: 'a.ts', line: 'x', column: 1 }), /line .* got "x"/);
    assert.match(error('lsp_hover', { file: 'a.ts', line: '3', column: 1 }), /line .* got "3"/);
    assert.match(error('lsp_hover', { file: 'a.ts', line: 1.5, column: 1 }), /line .* got 1\.5/);
    assert.match(error('lsp_hover', { file: 'a.ts', line: 1e300, column: 1 }), /line must be/);
    assert.match(error('lsp_hover', { file: 'a.ts', line: 1, column: null }), /column .* got null/);
    assert.match(error('lsp_definition', { file: 7, line: 1, column: 1 }), /file must be .* got 7/);
    assert.match(error('lsp_definition', { file: '  ', line: 1, column: 1 }), /file must be/);
    assert.match(
      error('lsp_references', { file: 'a.ts', line: 1, column: 1, includeDeclaration: 'yes' }),
      /includeDeclaration must be true or false, got "yes"/,
    );
    assert.match(error('lsp_workspace_symbols', {}), /query must be .* got nothing/);
    assert.match(
      error('lsp_rename', { file: 'a.ts', line: 1, column: 1 }),
      /newName must be .* got nothing/,
    );
    assert.match(
      error('lsp_rename', { file: 'a.ts', line: 1, column: 1, newName: ' ' }),
      /newName must not be blank/,
    );
  });

  it(
    'refuses control characters, line breaks and huge values, quoting them escaped and short',
    T,
    () => {
      const query = error('lsp_workspace_symbols', { query: 'a\u0000b\u001b[2J\u009b' });
      assert.match(query, /query must be .* without control characters/);
      assert.doesNotMatch(query, /[\u0000-\u001f\u007f-\u009f]/);
      assert.match(query, /\\u0000/);
      assert.match(
        error('lsp_workspace_symbols', { query: 'a\nb' }),
        /without control characters or line breaks/,
      );
      assert.match(
        error('lsp_workspace_symbols', { query: 'x'.repeat(MAX_QUERY_CHARS + 1) }),
        /at most 1000 characters, got 1001/,
      );
      const huge = error('lsp_rename', {
        file: 'a.ts',
        line: 1,
        column: 1,
        newName: 'n'.repeat(1_000_000),
      });
      assert.match(huge, /newName must be at most/);
      assert.ok(huge.length < 200, huge);
      assert.match(
        error('lsp_rename', { file: 'a.ts', line: 1, column: 1, newName: 'a\tb' }),
        /newName/,
      );
      assert.ok(
        parseLspCall('lsp_rename', {
          file: 'a.ts',
          line: 1,
          column: 1,
          newName: 'n'.repeat(MAX_NAME_CHARS),
        }).ok,
      );
      const file = error('lsp_diagnostics', { file: 'src/\u0007.ts' });
      assert.match(file, /without control characters/);
      assert.doesNotMatch(file, /\u0007/);
      assert.match(
        error('lsp_diagnostics', { file: 'a/'.repeat(3000) }),
        /at most 4096 characters/,
      );
      // An object argument is quoted short, never in full.
      const big = error('lsp_diagnostics', { file: { deep: 'x'.repeat(10_000) } });
      assert.ok(big.length < 300, big);
    },
  );
});
