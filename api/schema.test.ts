import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeType } from './redact.js';
import { formatPath, quoteName, validateServerConfig, validateSourceDocument } from './schema.js';
import type { McpServerConfig } from './server-config.js';
import { normalizeServerConfig } from './transport.js';

/** The error messages for one server entry `mcpServers.<name>`. */
function errorsOf(name: string, raw: unknown): string[] {
  return validateServerConfig(raw, ['mcpServers', name]).errors.map((e) => e.message);
}

describe('validateServerConfig error messages', { timeout: 10_000 }, () => {
  const cases: Array<[string, string, unknown, string]> = [
    [
      'args as a string',
      'fs',
      { command: 'node', args: 'a b' },
      'mcpServers.fs.args: expected an array of strings, got a string',
    ],
    [
      'an args element',
      'fs',
      { command: 'node', args: ['a', 2] },
      'mcpServers.fs.args[1]: expected a string, got a number',
    ],
    [
      'an env value',
      'fs',
      { command: 'node', env: { TOKEN: 5 } },
      'mcpServers.fs.env.TOKEN: expected a string, got a number',
    ],
    [
      'headers',
      'web',
      { httpUrl: 'https://a.test', headers: 'x' },
      'mcpServers.web.headers: expected an object of string values, got a string',
    ],
    [
      'url',
      'web',
      { url: 'not a url' },
      'mcpServers.web.url: expected an absolute URL (SSE), got a string',
    ],
    [
      'httpUrl',
      'web',
      { httpUrl: 'nope' },
      'mcpServers.web.httpUrl: expected an absolute URL (streamable HTTP), got a string',
    ],
    [
      'empty command',
      'fs',
      { command: '' },
      'mcpServers.fs.command: expected a non-empty string, got an empty string',
    ],
    [
      'timeout',
      'fs',
      { command: 'node', timeout: -5 },
      'mcpServers.fs.timeout: expected a positive whole number of milliseconds, got a number',
    ],
    [
      'fractional discoveryTimeoutMs',
      'fs',
      { command: 'node', discoveryTimeoutMs: 1.5 },
      'mcpServers.fs.discoveryTimeoutMs: expected a positive whole number of milliseconds, got a number',
    ],
    [
      'type',
      'fs',
      { command: 'node', type: 'grpc' },
      'mcpServers.fs.type: expected one of "stdio", "sse", "http", got a string',
    ],
    [
      'updateStrategy',
      'fs',
      { command: 'node', updateStrategy: 'BlueGreen' },
      'mcpServers.fs.updateStrategy: expected one of "RollingUpdate", "Recreate", got a string',
    ],
    [
      'trust',
      'fs',
      { command: 'node', trust: 'yes' },
      'mcpServers.fs.trust: expected true or false, got a string',
    ],
    [
      'includeTools element',
      'fs',
      { command: 'node', includeTools: [1] },
      'mcpServers.fs.includeTools[0]: expected a string, got a number',
    ],
    [
      'oauth',
      'fs',
      { command: 'node', oauth: 'token' },
      'mcpServers.fs.oauth: expected an object, got a string',
    ],
    [
      'a non-object entry',
      'fs',
      'node server.js',
      'mcpServers.fs: expected an object describing the server, got a string',
    ],
    [
      'a null entry',
      'fs',
      null,
      'mcpServers.fs: expected an object describing the server, got null',
    ],
    [
      'nothing to connect to',
      'fs',
      { args: ['x'] },
      'mcpServers.fs: needs "command" (a local stdio server), "httpUrl" (streamable HTTP) or "url" (SSE, or HTTP with "type": "http")',
    ],
    [
      'stdio without command',
      'fs',
      { type: 'stdio', url: 'https://a.test' },
      'mcpServers.fs.command: "type": "stdio" needs a command',
    ],
  ];

  for (const [what, name, raw, message] of cases) {
    it(`names server and field for ${what}`, () => {
      assert.deepEqual(errorsOf(name, raw), [message]);
    });
  }

  it('reports every bad field, not just the first', () => {
    assert.deepEqual(errorsOf('fs', { command: 'node', args: 'a', trust: 1 }), [
      'mcpServers.fs.args: expected an array of strings, got a string',
      'mcpServers.fs.trust: expected true or false, got a number',
    ]);
  });

  it('returns no config when there are errors', () => {
    assert.equal(validateServerConfig({ command: 1 }, ['mcpServers', 'fs']).config, undefined);
  });

  it('quotes no value, of any field: a secret lands in args as easily as in env', () => {
    const secret = 'sk-live-0123456789';
    const messages = [
      ...errorsOf('fs', { command: 'node', args: `--api-key=${secret}` }),
      ...errorsOf('fs', { command: 'node', type: secret }),
      ...errorsOf('fs', { command: secret.length }),
      ...errorsOf('fs', `node --key ${secret}`),
    ];
    assert.equal(messages.length, 4);
    for (const m of messages) {
      assert.ok(!m.includes(secret), m);
      assert.ok(!m.includes(String(secret.length)), m);
    }
  });

  it('describes a value by its type only', () => {
    assert.equal(describeType(undefined), 'nothing');
    assert.equal(describeType(null), 'null');
    assert.equal(describeType(''), 'an empty string');
    assert.equal(describeType('x'), 'a string');
    assert.equal(describeType(10n), 'a number');
    assert.equal(describeType([1]), 'an array');
    assert.equal(describeType({}), 'an object');
    assert.equal(
      describeType(() => 1),
      'a function',
    );
  });
});

describe('validateServerConfig unknown fields', { timeout: 10_000 }, () => {
  it('keeps them and reports warnings, not errors', () => {
    const result = validateServerConfig({ command: 'node', colour: 'blue', retries: 3 }, [
      'mcpServers',
      'fs',
    ]);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(
      result.warnings.map((w) => w.message),
      [
        'mcpServers.fs.colour: unknown field, kept but not used by mcpctl',
        'mcpServers.fs.retries: unknown field, kept but not used by mcpctl',
      ],
    );
    assert.deepEqual(result.warnings[0]?.path, ['mcpServers', 'fs', 'colour']);
    assert.deepEqual(result.config, { command: 'node', colour: 'blue', retries: 3 });
  });

  it('accepts every known field without a warning', () => {
    const full: McpServerConfig = {
      command: 'node',
      args: ['s.js'],
      env: { A: '1' },
      cwd: '/srv',
      headers: { H: 'v' },
      timeout: 600_000,
      discoveryTimeoutMs: 30_000,
      trust: false,
      description: 'd',
      includeTools: ['a'],
      excludeTools: ['b'],
      disabled: false,
      updateStrategy: 'Recreate',
      shared: true,
      oauth: { clientId: 'x' },
      authProviderType: 'dynamic_discovery',
      extensionName: 'ext',
    };
    const result = validateServerConfig(full, ['mcpServers', 'fs']);
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(result.config, full);
  });
});

describe('validateSourceDocument', { timeout: 10_000 }, () => {
  it('keeps valid servers, reports invalid ones with their path, and collects warnings', () => {
    const result = validateSourceDocument(
      { mcpServers: { ok: { command: 'node', extra: 1 }, bad: { command: 'node', args: 'a b' } } },
      normalizeServerConfig,
    );
    assert.deepEqual(
      result.errors.map((e) => e.message),
      ['mcpServers.bad.args: expected an array of strings, got a string'],
    );
    assert.deepEqual(result.errors[0]?.path, ['mcpServers', 'bad', 'args']);
    assert.deepEqual(
      result.warnings.map((w) => w.message),
      ['mcpServers.ok.extra: unknown field, kept but not used by mcpctl'],
    );
    assert.deepEqual(Object.keys(result.content.mcpServers ?? {}), ['ok']);
  });

  it('distinguishes no mcpServers key (undefined) from an empty map', () => {
    assert.equal(
      validateSourceDocument({ theme: 'dark' }, normalizeServerConfig).content.mcpServers,
      undefined,
    );
    assert.deepEqual(
      { ...validateSourceDocument({ mcpServers: {} }, normalizeServerConfig).content.mcpServers },
      {},
    );
    assert.deepEqual(validateSourceDocument(undefined, normalizeServerConfig).content, {});
  });

  it('rejects a document or mcpServers that is not an object', () => {
    assert.deepEqual(
      validateSourceDocument([1], normalizeServerConfig).errors.map((e) => e.message),
      ['expected a JSON object at the top of the file, got an array'],
    );
    assert.deepEqual(
      validateSourceDocument({ mcpServers: ['fs'] }, normalizeServerConfig).errors.map(
        (e) => e.message,
      ),
      ['mcpServers: expected an object mapping server names to their config, got an array'],
    );
  });

  it('rejects an empty server name', () => {
    assert.deepEqual(
      validateSourceDocument(
        { mcpServers: { ' ': { command: 'x' } } },
        normalizeServerConfig,
      ).errors.map((e) => e.message),
      ['mcpServers: a server name must not be empty'],
    );
  });

  it('reads the mcp gating lists, keeping allowed [] as deny-all', () => {
    const denyAll = validateSourceDocument(
      { mcp: { allowed: [], excluded: ['x'] } },
      normalizeServerConfig,
    );
    assert.deepEqual(denyAll.content.mcp, { allowed: [], excluded: ['x'] });
    const none = validateSourceDocument({ mcp: {} }, normalizeServerConfig);
    assert.deepEqual(none.content.mcp, {});
    assert.equal('allowed' in (none.content.mcp ?? {}), false);
  });

  it('reports bad gating lists and serverCommand by path', () => {
    const result = validateSourceDocument(
      { mcp: { allowed: 'fs', excluded: [1], serverCommand: 3 } },
      normalizeServerConfig,
    );
    assert.deepEqual(
      result.errors.map((e) => e.message),
      [
        'mcp.allowed: expected an array of server names (strings), got a string',
        'mcp.excluded: expected an array of server names (strings), got an array',
        'mcp.serverCommand: expected a string, got a number',
      ],
    );
  });

  it('reads security.folderTrust.enabled and reports a non-boolean', () => {
    assert.equal(
      validateSourceDocument(
        { security: { folderTrust: { enabled: true } } },
        normalizeServerConfig,
      ).content.folderTrustEnabled,
      true,
    );
    assert.deepEqual(
      validateSourceDocument(
        { security: { folderTrust: { enabled: 'yes' } } },
        normalizeServerConfig,
      ).errors.map((e) => e.message),
      ['security.folderTrust.enabled: expected true or false, got a string'],
    );
  });

  it('keeps a server named "__proto__" as an ordinary entry', () => {
    const doc = JSON.parse(
      '{"mcpServers": {"__proto__": {"command": "x"}, "constructor": {"command": "y"}}}',
    ) as unknown;
    const servers = validateSourceDocument(doc, normalizeServerConfig).content.mcpServers ?? {};
    assert.deepEqual(Object.keys(servers), ['__proto__', 'constructor']);
    assert.equal(Object.getOwnPropertyDescriptor(servers, '__proto__')?.value.command, 'x');
    assert.equal(({} as Record<string, unknown>).command, undefined);
  });
});

describe('validateSourceDocument caching', { timeout: 10_000 }, () => {
  it('reuses results for the same objects and only for them', () => {
    const a = { command: 'node', args: ['a'], extra: 1 };
    const b = { command: 'node', args: ['b'] };
    const first = validateSourceDocument({ mcpServers: { a, b } }, normalizeServerConfig);
    // Same entry objects in a new map (an edit elsewhere): the same config objects come back,
    // warnings included.
    const c = { command: 'node', args: ['c'] };
    const second = validateSourceDocument({ mcpServers: { a, b, c } }, normalizeServerConfig);
    assert.equal(second.content.mcpServers?.a, first.content.mcpServers?.a);
    assert.equal(second.content.mcpServers?.b, first.content.mcpServers?.b);
    assert.deepEqual(second.warnings, first.warnings);
    assert.equal(second.warnings.length, 1);
    // The same map object: the whole validated map is reused.
    const servers = { a, b };
    const once = validateSourceDocument({ mcpServers: servers }, normalizeServerConfig);
    const twice = validateSourceDocument({ mcpServers: servers, ui: {} }, normalizeServerConfig);
    assert.equal(twice.content.mcpServers, once.content.mcpServers);
    // The same entry under another name is validated again: messages carry the name.
    const renamed = validateSourceDocument({ mcpServers: { z: a } }, normalizeServerConfig);
    assert.match(renamed.warnings[0]?.message ?? '', /^mcpServers\.z\.extra/);
    // Another normaliser never sees the first one's results.
    const upper = (config: McpServerConfig): McpServerConfig => ({
      ...config,
      command: config.command?.toUpperCase(),
    });
    assert.equal(
      validateSourceDocument({ mcpServers: servers }, upper).content.mcpServers?.a?.command,
      'NODE',
    );
  });
});

describe('formatPath', { timeout: 10_000 }, () => {
  it('joins keys with dots and indexes with brackets', () => {
    assert.equal(formatPath(['mcpServers', 'fs', 'args', 0]), 'mcpServers.fs.args[0]');
    assert.equal(formatPath(['mcp', 'allowed']), 'mcp.allowed');
  });
});

describe('validation never quotes a secret', { timeout: 10_000 }, () => {
  const SECRET = 'sk-live-Zq9xSECRET';
  // Every shape a careless or hostile config could give a secret-bearing field.
  const entries: Array<[string, Record<string, unknown>]> = [
    ['env as a string', { command: 'node', env: `TOKEN=${SECRET}` }],
    ['env as an array', { command: 'node', env: [`TOKEN=${SECRET}`] }],
    ['env as a number', { command: 'node', env: 4242424242 }],
    ['an env value as an array', { command: 'node', env: { TOKEN: [SECRET] } }],
    ['an env value as an object', { command: 'node', env: { TOKEN: { value: SECRET } } }],
    ['an env value as a number', { command: 'node', env: { PIN: 4242424242 } }],
    ['an env value as a boolean', { command: 'node', env: { SECRET_FLAG: true } }],
    ['headers as a string', { httpUrl: 'https://a.test', headers: `Authorization: ${SECRET}` }],
    ['headers as an array', { httpUrl: 'https://a.test', headers: [`Bearer ${SECRET}`] }],
    ['a header value as an array', { httpUrl: 'https://a.test', headers: { A: [SECRET] } }],
    ['a header value as a number', { httpUrl: 'https://a.test', headers: { A: 4242424242 } }],
    ['a header value as an object', { httpUrl: 'https://a.test', headers: { A: { b: SECRET } } }],
    ['oauth as a string', { httpUrl: 'https://a.test', oauth: SECRET }],
    ['oauth as an array', { httpUrl: 'https://a.test', oauth: [{ clientSecret: SECRET }] }],
    ['a relative url with a token', { url: `mcp.test/sse?token=${SECRET}` }],
    ['a url with userinfo, not absolute', { httpUrl: `//user:${SECRET}@mcp.test/` }],
    ['a url given as an array', { httpUrl: [`https://mcp.test/?api_key=${SECRET}`] }],
    // Other errors in the same entry must not drag the secrets along.
    ['a bad field next to env', { command: 1, env: { TOKEN: SECRET }, headers: { A: SECRET } }],
  ];

  /** Every message a document gives, whatever it is. */
  function messagesOf(doc: unknown): string[] {
    const v = validateSourceDocument(doc, normalizeServerConfig);
    return [...v.errors, ...v.warnings].map((i) => i.message);
  }

  for (const [what, entry] of entries) {
    it(`names the field and the type, never the value: ${what}`, () => {
      const messages = messagesOf({ mcpServers: { fs: entry } });
      assert.ok(messages.length > 0, 'the entry is refused');
      for (const m of messages) {
        assert.ok(!m.includes(SECRET) && !m.includes('4242424242'), m);
        assert.match(m, /^mcpServers\.fs(\.|:)/);
      }
    });
  }

  it('does not quote a secret through a badly shaped entry, map or document either', () => {
    const server = { command: 'node', env: { TOKEN: SECRET }, headers: { A: SECRET } };
    const remote = { url: `https://user:${SECRET}@mcp.test/?token=${SECRET}` };
    for (const doc of [
      { mcpServers: { fs: [server] } },
      { mcpServers: [server, remote] },
      [{ mcpServers: { fs: server } }],
      { mcpServers: { fs: [remote] } },
    ]) {
      const messages = messagesOf(doc);
      assert.ok(messages.length > 0, JSON.stringify(doc));
      for (const m of messages) assert.ok(!m.includes(SECRET), m);
    }
  });

  it('still shows the value of fields that are not secret', () => {
    assert.deepEqual(messagesOf({ mcpServers: { fs: { command: 'node', args: 'a b' } } }), [
      'mcpServers.fs.args: expected an array of strings, got a string',
    ]);
    assert.deepEqual(messagesOf({ mcpServers: { fs: [{ command: 'node' }] } }), [
      'mcpServers.fs: expected an object describing the server, got an array',
    ]);
  });
});

describe('server names that would drive a terminal', { timeout: 10_000 }, () => {
  const RAW =
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff\u{e0000}-\u{e007f}]/u;

  it('refuses control, bidi, zero-width and tag characters, with a printable message', () => {
    for (const name of [
      'x\u001b]52;c;SGVsbG8=\u0007y',
      'a\u001b[2Jb',
      'line\nbreak',
      'tab\there',
      'c\u009b2Jd',
      'del\u007f',
      'e\u202ef',
      'g\u2066h',
      'git\u200bhub',
      'bom\ufeff',
      'tag\u{e0041}',
    ]) {
      const v = validateSourceDocument(
        { mcpServers: { ok: { command: 'node' }, [name]: { command: 'node' } } },
        normalizeServerConfig,
      );
      assert.equal(v.errors.length, 1, JSON.stringify(name));
      const [error] = v.errors;
      assert.deepEqual(error?.path, ['mcpServers', name]);
      assert.match(
        error?.message ?? '',
        /^mcpServers: the server name ".*" contains the control character U\+[0-9A-F]{4,5}; rename the server/,
      );
      assert.doesNotMatch(error?.message ?? '', RAW);
      assert.equal(Object.keys(v.content.mcpServers ?? {}).includes(name), false);
    }
  });

  it('quotes names with their control characters escaped', () => {
    assert.equal(quoteName('a\u001b[2Jb'), '"a\\u001b[2Jb"');
    assert.equal(quoteName('c\u009bd\u202e\u200b'), '"c\\x9bd\\u202e\\u200b"');
    assert.equal(quoteName('fs'), '"fs"');
  });

  it('accepts names in any script, spaces and punctuation', () => {
    const names = ['名前', 'صندوق', 'my server', "it's", 'a/b:c'];
    const v = validateSourceDocument(
      { mcpServers: Object.fromEntries(names.map((n) => [n, { command: 'node' }])) },
      normalizeServerConfig,
    );
    assert.deepEqual(v.errors, []);
    assert.deepEqual(Object.keys(v.content.mcpServers ?? {}), names);
  });
});
