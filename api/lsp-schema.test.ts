import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  validateLanguageServerConfig,
  validateLanguageServerDocument,
  workspaceFolderOf,
} from './lsp-schema.js';

const TS = {
  command: 'typescript-language-server',
  args: ['--stdio'],
  extensionToLanguage: { '.ts': 'typescript', '.tsx': 'typescriptreact' },
};

function errorsOf(entry: unknown, name = 'typescript'): string[] {
  return validateLanguageServerDocument({ [name]: entry }).errors.map((e) => e.message);
}

function warningsOf(entry: unknown, name = 'typescript'): string[] {
  return validateLanguageServerDocument({ [name]: entry }).warnings.map((e) => e.message);
}

describe('validateLanguageServerDocument', { timeout: 10_000 }, () => {
  it('accepts the format Qwen Code and Claude Code plugins share, a key per server', () => {
    const v = validateLanguageServerDocument({
      typescript: TS,
      bash: {
        command: 'bash-language-server',
        args: ['start'],
        extensionToLanguage: { '.sh': 'shellscript' },
        transport: 'stdio',
        initializationOptions: { x: 1 },
        settings: { bashIde: { globPattern: '**/*.sh' } },
        workspaceFolder: 'scripts',
        startupTimeout: 10_000,
        shutdownTimeout: 2000,
        restartOnCrash: false,
        maxRestarts: 0,
      },
    });
    assert.deepEqual(v.errors, []);
    assert.deepEqual(v.warnings, []);
    assert.deepEqual(Object.keys(v.servers), ['typescript', 'bash']);
    assert.deepEqual(v.servers.typescript, TS);
    assert.equal(v.servers.bash?.maxRestarts, 0);
  });

  it('an empty or missing document has no servers and no errors', () => {
    for (const doc of [undefined, null, {}]) {
      const v = validateLanguageServerDocument(doc);
      assert.deepEqual([Object.keys(v.servers), v.errors, v.warnings], [[], [], []]);
    }
  });

  it('refuses a document that is not an object, saying what the format is', () => {
    const [error] = validateLanguageServerDocument([TS]).errors;
    assert.match(error?.message ?? '', /^expected a JSON object with a key per language server/);
  });

  const cases: Array<[string, unknown, string[]]> = [
    [
      'extensionToLanguage as a string',
      { ...TS, extensionToLanguage: 'ts' },
      [
        'typescript.extensionToLanguage: expected an object mapping extensions such as ".ts" to language ids, got a string',
      ],
    ],
    [
      'no command',
      { extensionToLanguage: { '.ts': 'typescript' } },
      [
        'typescript.command: missing; add the program that starts the language server, e.g. "command": "typescript-language-server"',
      ],
    ],
    [
      'no extensionToLanguage',
      { command: 'tsls' },
      [
        'typescript.extensionToLanguage: missing; add the files it handles and their language ids, e.g. "extensionToLanguage": {".ts": "typescript"}',
      ],
    ],
    [
      'neither required field',
      {},
      [
        'typescript.command: missing; add the program that starts the language server, e.g. "command": "typescript-language-server"',
        'typescript.extensionToLanguage: missing; add the files it handles and their language ids, e.g. "extensionToLanguage": {".ts": "typescript"}',
      ],
    ],
    [
      'an extension without its dot',
      { ...TS, extensionToLanguage: { ts: 'typescript', '*.js': 'javascript' } },
      [
        'typescript.extensionToLanguage: the key "ts" is not an extension; write it with its dot, e.g. ".ts"',
        'typescript.extensionToLanguage: the key "*.js" is not an extension; write it with its dot, e.g. ".js"',
      ],
    ],
    [
      'no extensions at all',
      { ...TS, extensionToLanguage: {} },
      [
        'typescript.extensionToLanguage: no extensions, so no file would ever reach the server; add at least one, e.g. {".ts": "typescript"}',
      ],
    ],
    [
      'an empty language id',
      { ...TS, extensionToLanguage: { '.ts': '' } },
      [
        'typescript.extensionToLanguage: the language id of ".ts" is empty; give the LSP language id, e.g. "typescript"',
      ],
    ],
    [
      'a language id that is not a string',
      { ...TS, extensionToLanguage: { '.ts': 1 } },
      [
        'typescript.extensionToLanguage..ts: expected a language id (a string such as "typescript"), got a number',
      ],
    ],
    [
      'a socket transport',
      { ...TS, transport: 'socket' },
      [
        'typescript.transport: a socket or TCP transport is not supported: mcpctl starts language servers over stdio only; remove "transport" or set it to "stdio"',
      ],
    ],
    [
      'a tcp transport',
      { ...TS, transport: 'tcp', port: 2087 },
      [
        'typescript.transport: a socket or TCP transport is not supported: mcpctl starts language servers over stdio only; remove "transport" or set it to "stdio"',
      ],
    ],
    [
      'an unknown transport',
      { ...TS, transport: 'pipe' },
      [
        'typescript.transport: expected "stdio" (mcpctl starts language servers over stdio only), got a string',
      ],
    ],
    [
      'a workspace folder climbing out',
      { ...TS, workspaceFolder: 'packages/../../elsewhere' },
      [
        'typescript.workspaceFolder: the path leaves the workspace; use a folder inside it (relative to the workspace root, e.g. "packages/app"), or remove the field for the root',
      ],
    ],
    [
      'args as a string',
      { ...TS, args: '--stdio' },
      ['typescript.args: expected an array of strings, got a string'],
    ],
    [
      'a zero startup timeout',
      { ...TS, startupTimeout: 0 },
      ['typescript.startupTimeout: expected a positive whole number of milliseconds, got a number'],
    ],
    [
      'a fractional shutdown timeout',
      { ...TS, shutdownTimeout: 1.5 },
      [
        'typescript.shutdownTimeout: expected a positive whole number of milliseconds, got a number',
      ],
    ],
    [
      'a startup timeout no timer can wait',
      { ...TS, startupTimeout: 1e12 },
      [
        'typescript.startupTimeout: more than a timer can wait (2147483647 ms, about 24 days); use a smaller number of milliseconds',
      ],
    ],
    [
      'negative maxRestarts',
      { ...TS, maxRestarts: -1 },
      ['typescript.maxRestarts: expected a whole number, 0 or more, got a number'],
    ],
    [
      'restartOnCrash as a string',
      { ...TS, restartOnCrash: 'yes' },
      ['typescript.restartOnCrash: expected true or false, got a string'],
    ],
    [
      'an entry that is not an object',
      'typescript-language-server --stdio',
      ['typescript: expected an object describing the language server, got a string'],
    ],
    [
      'a bad type and a missing field together',
      { args: 1, extensionToLanguage: { '.ts': 'typescript' } },
      [
        'typescript.args: expected an array of strings, got a number',
        'typescript.command: missing; add the program that starts the language server, e.g. "command": "typescript-language-server"',
      ],
    ],
  ];
  for (const [what, entry, messages] of cases) {
    it(`names the server, the field and the fix: ${what}`, () => {
      assert.deepEqual(errorsOf(entry), messages);
      assert.deepEqual(
        Object.keys(validateLanguageServerDocument({ typescript: entry }).servers),
        [],
      );
    });
  }

  it('never quotes env values: a bad one is described by its type only', () => {
    const SECRET = 'ghp_supersecrettoken';
    for (const entry of [
      { ...TS, env: SECRET },
      { ...TS, env: { TOKEN: 42, OTHER: SECRET } },
      { ...TS, env: [SECRET] },
      [{ ...TS, env: { TOKEN: SECRET } }],
    ]) {
      const messages = errorsOf(entry);
      assert.ok(messages.length > 0, JSON.stringify(entry));
      for (const m of messages) assert.ok(!m.includes(SECRET), m);
    }
  });

  it('keeps unknown fields and warns about them; host, port and path are warned unused', () => {
    const v = validateLanguageServerDocument({
      typescript: { ...TS, diagnostics: true, host: 'localhost', port: 2087 },
    });
    assert.deepEqual(v.errors, []);
    assert.deepEqual(
      v.warnings.map((w) => w.message),
      [
        'typescript.diagnostics: unknown field, kept but not used by mcpctl',
        'typescript.host: not used: mcpctl talks to language servers over stdio, so host, port and path mean nothing; remove it',
        'typescript.port: not used: mcpctl talks to language servers over stdio, so host, port and path mean nothing; remove it',
      ],
    );
    assert.equal((v.servers.typescript as Record<string, unknown>).diagnostics, true);
  });

  it('warns about an unused port beside a socket transport too', () => {
    assert.ok(
      warningsOf({ ...TS, transport: 'tcp', port: 1 }).some((w) => /\.port: not used/.test(w)),
    );
  });

  it('refuses names with control characters, with the name escaped', () => {
    const RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
    for (const name of ['x\u001b]52;c;SGVsbG8=\u0007y', 'line\nbreak', 'e\u202ef', '  ']) {
      const v = validateLanguageServerDocument({ ok: TS, [name]: TS });
      assert.equal(v.errors.length, 1, JSON.stringify(name));
      const [error] = v.errors;
      assert.deepEqual(error?.path, [name]);
      assert.match(
        error?.message ?? '',
        /^(the language server name ".*" contains the control character U\+[0-9A-F]{4}; rename the language server|a language server name must not be empty)/,
      );
      assert.doesNotMatch(error?.message ?? '', RAW);
      assert.deepEqual(Object.keys(v.servers), ['ok']);
    }
  });

  it('escapes control characters in an extension key', () => {
    const [message] = errorsOf({ ...TS, extensionToLanguage: { 'a\u001b[2J': 'x' } });
    assert.match(message ?? '', /the key "a\\u001b\[2J" is not an extension/);
  });

  it('treats "__proto__" as an ordinary server name', () => {
    const v = validateLanguageServerDocument(JSON.parse(`{"__proto__": ${JSON.stringify(TS)}}`));
    assert.deepEqual(v.errors, []);
    assert.deepEqual(Object.keys(v.servers), ['__proto__']);
  });

  it('gives an unchanged entry object the same config object', () => {
    const entry = { ...TS };
    const a = validateLanguageServerDocument({ typescript: entry });
    const b = validateLanguageServerDocument({ typescript: entry, other: { ...TS } });
    assert.equal(a.servers.typescript, b.servers.typescript);
    const renamed = validateLanguageServerDocument({ ts: entry });
    assert.deepEqual(Object.keys(renamed.servers), ['ts']);
  });

  it('validates one entry at any base path', () => {
    const v = validateLanguageServerConfig({ extensionToLanguage: {} }, ['plugin', 'ts']);
    assert.deepEqual(
      v.errors.map((e) => e.path),
      [
        ['plugin', 'ts', 'command'],
        ['plugin', 'ts', 'extensionToLanguage'],
      ],
    );
  });
});

describe('workspaceFolderOf', { timeout: 10_000 }, () => {
  const ws = path.resolve('/repo/project');

  it('is the workspace root when the entry has none', () => {
    assert.deepEqual(workspaceFolderOf({}, ws), { ok: true, folder: ws });
  });

  it('resolves a relative folder against the workspace', () => {
    assert.deepEqual(workspaceFolderOf({ workspaceFolder: 'packages/app' }, ws), {
      ok: true,
      folder: path.join(ws, 'packages', 'app'),
    });
    assert.deepEqual(workspaceFolderOf({ workspaceFolder: './a/../b/' }, ws), {
      ok: true,
      folder: path.join(ws, 'b'),
    });
    assert.deepEqual(workspaceFolderOf({ workspaceFolder: '..hidden' }, ws), {
      ok: true,
      folder: path.join(ws, '..hidden'),
    });
  });

  it('accepts an absolute folder inside the workspace, and the root itself', () => {
    assert.deepEqual(workspaceFolderOf({ workspaceFolder: path.join(ws, 'src') }, ws), {
      ok: true,
      folder: path.join(ws, 'src'),
    });
    assert.deepEqual(workspaceFolderOf({ workspaceFolder: ws }, ws), { ok: true, folder: ws });
  });

  it('refuses a folder outside the workspace, naming the field and the workspace', () => {
    for (const workspaceFolder of ['..', '../project-other', '/etc', `${ws}-sibling`]) {
      const r = workspaceFolderOf({ workspaceFolder }, ws, 'typescript');
      assert.equal(r.ok, false, workspaceFolder);
      if (r.ok) continue;
      assert.match(r.message, /^typescript\.workspaceFolder: /);
      assert.ok(r.message.includes(`outside the workspace ${ws}`), r.message);
    }
    const bare = workspaceFolderOf({ workspaceFolder: '/etc' }, ws);
    assert.equal(bare.ok, false);
    if (!bare.ok) assert.match(bare.message, /^workspaceFolder: the folder it names is outside/);
    if (!bare.ok) assert.ok(!bare.message.includes('/etc'), 'the value is not quoted');
  });
});
