import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseTree, type Node } from 'jsonc-parser';
import { formattingOf, removeValue, setValue } from './jsonc-edit.js';

const T = { timeout: 10_000 };

/** A JSONC text's value, `__proto__` an own key like any other (as JSON.parse makes it). */
function docOf(text: string): unknown {
  const tree = parseTree(text, [], { allowTrailingComma: true });
  const valueOf = (node: Node): unknown => {
    if (node.type === 'array') return (node.children ?? []).map(valueOf);
    if (node.type !== 'object') return node.value as unknown;
    const members = (node.children ?? []).map(
      (p) => `${JSON.stringify(p.children?.[0]?.value)}:${JSON.stringify(valueOf(p.children![1]))}`,
    );
    return JSON.parse(`{${members.join(',')}}`) as unknown;
  };
  return tree === undefined ? undefined : valueOf(tree);
}

const JSONC = `// top comment
{
  /* block */
  "mcpServers": {
    "a": { "command": "a" }, // about a
    "b": {
      "command": "b" // about b's command
    } // about b
  },
  "theme": "dark"
}
`;

describe('setValue', () => {
  it('adds below the last member, keeping its line comment on its line', T, () => {
    const out = setValue(JSONC, ['mcpServers', 'c'], { command: 'c' });
    assert.equal(
      out,
      JSONC.replace(
        '    } // about b\n',
        '    }, // about b\n    "c": {\n      "command": "c"\n    }\n',
      ),
    );
  });

  it('keeps a trailing-comma style, and a sibling on one line untouched', T, () => {
    const text = '{\n  "mcpServers": {\n    "a": { "command": "a" }, // keep\n  },\n}\n';
    const out = setValue(text, ['mcpServers', 'b'], { command: 'b' });
    assert.equal(
      out,
      '{\n  "mcpServers": {\n    "a": { "command": "a" }, // keep\n    "b": {\n      "command": "b"\n    },\n  },\n}\n',
    );
    assert.equal(removeValue(out, ['mcpServers', 'b']), text);
  });

  it('replaces a value only, keeping its key line and comment', T, () => {
    const out = setValue(JSONC, ['mcpServers', 'a'], { command: 'z' });
    assert.ok(out.includes('    "a": {\n      "command": "z"\n    }, // about a\n'), out);
    assert.ok(out.includes("// about b's command"));
  });

  it('makes the missing objects, into an empty one or a new text', T, () => {
    assert.equal(
      setValue('{}', ['projects', '/ws', 'mcpServers', 'x'], 1),
      '{\n  "projects": {\n    "/ws": {\n      "mcpServers": {\n        "x": 1\n      }\n    }\n  }\n}',
    );
    assert.equal(
      setValue('', ['mcpServers', 'x'], 1),
      '{\n  "mcpServers": {\n    "x": 1\n  }\n}\n',
    );
    assert.equal(setValue('// only a comment', ['a'], 1), '// only a comment\n{\n  "a": 1\n}\n');
    assert.equal(setValue('{ /* keep */ }', ['a'], 1), '{\n  "a": 1 /* keep */ }');
  });

  it('indents as the file does', T, () => {
    assert.deepEqual(formattingOf('{\n\t"a": 1\n}'), { unit: '\t' });
    assert.deepEqual(formattingOf('{\n    "a": 1\n}'), { unit: '    ' });
    assert.deepEqual(formattingOf('{}'), { unit: '  ' });
    assert.equal(
      setValue('{\n    "a": 1\n}', ['b'], [1]),
      '{\n    "a": 1,\n    "b": [\n        1\n    ]\n}',
    );
  });
});

describe('removeValue', () => {
  it('takes the member with its line and comma, keeping the others’ comments', T, () => {
    const out = removeValue(JSONC, ['mcpServers', 'a']);
    assert.equal(out, JSONC.replace('    "a": { "command": "a" }, // about a\n', ''));
  });

  it('takes the comma before the last member, keeping the strict JSON strict', T, () => {
    const out = removeValue(JSONC, ['mcpServers', 'b']);
    assert.equal(
      out,
      '// top comment\n{\n  /* block */\n  "mcpServers": {\n    "a": { "command": "a" } // about a\n  },\n  "theme": "dark"\n}\n',
    );
    const strict = '{\n  "a": 1,\n  "b": 2\n}\n';
    assert.equal(removeValue(strict, ['b']), '{\n  "a": 1\n}\n');
    assert.equal(removeValue('{"a":1,"b":2}', ['a']), '{"b":2}');
    assert.equal(removeValue('{"a":1,"b":2}', ['b']), '{"a":1}');
    assert.equal(removeValue('{"a":1}', ['a']), '{}');
  });

  it('leaves the text alone when the path is absent', T, () => {
    assert.equal(removeValue(JSONC, ['mcpServers', 'nope']), JSONC);
    assert.equal(removeValue(JSONC, ['nope', 'deeper']), JSONC);
  });
});

describe('set then remove, any keys and values', () => {
  const bases = [
    JSONC,
    '{}',
    '{"mcpServers":{"a":1}}',
    '{\n\t"mcpServers": {\n\t\t"a": 1,\n\t},\n}\n',
    '',
  ];
  it('parse to exactly what was set, and back to the original document', T, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...bases),
        fc.string({ minLength: 1 }).filter((k) => k !== 'a' && k !== 'b'),
        fc.jsonValue(),
        (base, key, value) => {
          const path = ['mcpServers', key];
          const set = setValue(base, path, value);
          const doc = docOf(set) as Record<string, unknown>;
          const servers = doc.mcpServers as Record<string, unknown>;
          // JSON's own round trip is the reference (-0 prints as 0).
          assert.deepEqual(servers[key], JSON.parse(JSON.stringify(value)));
          const removed = removeValue(set, path);
          const before = docOf(base);
          const after = docOf(removed);
          // The objects made on the way stay (empty); everything else is as before.
          const made = { mcpServers: {} };
          assert.deepEqual(after, { ...made, ...((before as object | undefined) ?? {}) });
        },
      ),
      { numRuns: 300 },
    );
  });
});
