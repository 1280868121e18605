import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  expandServerConfig,
  syntaxOfScope,
  syntaxOfServer,
  type ExpansionSyntax,
  type SessionEnv,
} from './env-expansion.js';
import { redact, REDACTED, scrubSecrets } from './redact.js';
import type { McpServerConfig } from './server-config.js';

const ENV: SessionEnv = { TOKEN: 'tok-123', HOST: 'example.org', EMPTY: '', A1: 'x' };

/** One string through a config's `args`, where both syntaxes expand. */
function arg(text: string, syntax: ExpansionSyntax): string | { missing: readonly string[] } {
  const r = expandServerConfig({ command: 'node', args: [text] }, syntax, ENV);
  return r.ok ? (r.config.args ?? [])[0] : { missing: r.missing };
}

describe('expandServerConfig', { timeout: 10_000 }, () => {
  // [text, settings.json result, .mcp.json result]
  const table: [string, unknown, unknown][] = [
    ['${TOKEN}', 'tok-123', 'tok-123'],
    ['$TOKEN', 'tok-123', '$TOKEN'],
    ['Bearer ${TOKEN}!', 'Bearer tok-123!', 'Bearer tok-123!'],
    ['$TOKEN$HOST', 'tok-123example.org', '$TOKEN$HOST'],
    ['https://${HOST}/mcp', 'https://example.org/mcp', 'https://example.org/mcp'],
    ['${NOPE:-fallback}', '${NOPE:-fallback}', 'fallback'],
    ['${TOKEN:-fallback}', '${TOKEN:-fallback}', 'tok-123'],
    ['${EMPTY:-fallback}', '${EMPTY:-fallback}', 'fallback'],
    ['${EMPTY}', '', ''],
    ['${NOPE:-}', '${NOPE:-}', ''],
    ['${NOPE}', { missing: ['NOPE'] }, { missing: ['NOPE'] }],
    ['$NOPE', { missing: ['NOPE'] }, '$NOPE'],
    // A `$` that starts no variable is text in both syntaxes.
    ['cost: $5', 'cost: $5', 'cost: $5'],
    ['a $ b', 'a $ b', 'a $ b'],
    ['pa$$', 'pa$$', 'pa$$'],
    ['${not a name}', '${not a name}', '${not a name}'],
    ['${unclosed', '${unclosed', '${unclosed'],
    ['$(whoami)', '$(whoami)', '$(whoami)'],
    ['${A1}', 'x', 'x'],
    ['${1A}', '${1A}', '${1A}'],
    ['no dollar at all', 'no dollar at all', 'no dollar at all'],
  ];
  for (const [text, settings, claude] of table) {
    it(`${JSON.stringify(text)}: settings → ${JSON.stringify(settings)}, .mcp.json → ${JSON.stringify(claude)}`, () => {
      assert.deepEqual(arg(text, 'settings'), settings);
      assert.deepEqual(arg(text, 'claude'), claude);
    });
  }

  it('reports every missing variable once, in order, and produces no config', () => {
    const r = expandServerConfig(
      { command: '${BIN}', args: ['${X}', '${Y}', '${X}'], env: { K: '${Y}' } },
      'claude',
      ENV,
    );
    assert.deepEqual(r, { ok: false, missing: ['BIN', 'X', 'Y'] });
  });

  it('.mcp.json: command, args, env, url, httpUrl and headers expand; other fields stay text', () => {
    const config: McpServerConfig = {
      command: '${HOST}-bin',
      args: ['--t=${TOKEN}'],
      env: { T: '${TOKEN}', KEEP: 'lit' },
      cwd: '/w/${HOST}',
      description: '${TOKEN}',
    };
    const r = expandServerConfig(config, 'claude', ENV);
    assert.ok(r.ok);
    assert.equal(r.config.command, 'example.org-bin');
    assert.deepEqual(r.config.args, ['--t=tok-123']);
    assert.deepEqual(r.config.env, { T: 'tok-123', KEEP: 'lit' });
    assert.equal(r.config.cwd, '/w/${HOST}');
    assert.equal(r.config.description, '${TOKEN}');
    const remote = expandServerConfig(
      { url: 'https://${HOST}/sse', headers: { Authorization: 'Bearer ${TOKEN}' } },
      'claude',
      ENV,
    );
    assert.ok(remote.ok);
    assert.equal(remote.config.url, 'https://example.org/sse');
    assert.deepEqual(remote.config.headers, { Authorization: 'Bearer tok-123' });
    const http = expandServerConfig({ httpUrl: 'https://${HOST}/mcp' }, 'claude', ENV);
    assert.ok(http.ok);
    assert.equal(http.config.httpUrl, 'https://example.org/mcp');
  });

  it('settings.json: every string of the config expands, nested too; keys stay as written', () => {
    const r = expandServerConfig(
      {
        command: 'node',
        cwd: '/w/$HOST',
        env: { $HOST: '$TOKEN' },
        headers: { 'X-Key': '${TOKEN}' },
        includeTools: ['$HOST'],
        oauth: { enabled: true, scopes: ['read:${HOST}'] },
      },
      'settings',
      ENV,
    );
    assert.ok(r.ok);
    assert.equal(r.config.cwd, '/w/example.org');
    assert.deepEqual(r.config.env, { $HOST: 'tok-123' });
    assert.deepEqual(r.config.headers, { 'X-Key': 'tok-123' });
    assert.deepEqual(r.config.includeTools, ['example.org']);
    assert.deepEqual(r.config.oauth?.scopes, ['read:example.org']);
  });

  it('lists what it substituted (secrets to scrub), defaults included', () => {
    const r = expandServerConfig(
      { command: 'n', args: ['${TOKEN}', '${NOPE:-dflt-value}'] },
      'claude',
      ENV,
    );
    assert.ok(r.ok);
    assert.deepEqual([...r.substituted].sort(), ['dflt-value', 'tok-123']);
  });

  it('returns the very same config object when nothing refers to a variable', () => {
    const config: McpServerConfig = { command: 'node', args: ['a'], env: { K: 'v' } };
    const r = expandServerConfig(config, 'settings', ENV);
    assert.ok(r.ok);
    assert.equal(r.config, config);
  });

  it("names of Object.prototype's members are unset variables, not built-ins", () => {
    // `{}` and process.env inherit these: a lookup by name must see only what is set.
    const names = [...Object.getOwnPropertyNames(Object.prototype), '__proto__'];
    assert.ok(names.includes('constructor') && names.includes('toString'));
    for (const env of [ENV, process.env as SessionEnv]) {
      for (const name of names) {
        const at = (text: string, syntax: ExpansionSyntax) =>
          expandServerConfig({ command: 'node', args: [text] }, syntax, env);
        for (const [text, syntax] of [
          [`\${${name}}`, 'settings'],
          [`$${name}`, 'settings'],
          [`\${${name}}`, 'claude'],
        ] as const)
          assert.deepEqual(at(text, syntax), { ok: false, missing: [name] }, `${syntax} ${text}`);
        for (const [text, expected] of [
          [`\${${name}:-dflt}`, 'dflt'],
          [`\${${name}:-}`, ''],
          [`<\${${name}:-d}>`, '<d>'],
        ]) {
          const r = at(text, 'claude');
          assert.ok(r.ok, text);
          assert.deepEqual(r.config.args, [expected], text);
        }
        // A settings file has no default syntax: the text stays as written.
        const s = at(`\${${name}:-dflt}`, 'settings');
        assert.ok(s.ok);
        assert.deepEqual(s.config.args, [`\${${name}:-dflt}`]);
      }
    }
  });

  it('a variable that is really set under such a name expands', () => {
    const env: SessionEnv = Object.fromEntries([['constructor', 'c-value']]);
    const r = expandServerConfig({ command: 'n', args: ['${constructor}'] }, 'claude', env);
    assert.ok(r.ok);
    assert.deepEqual(r.config.args, ['c-value']);
  });

  it('session-injected servers are taken as given', () => {
    const r = expandServerConfig({ command: 'n', args: ['${NOPE}'] }, 'none', ENV);
    assert.ok(r.ok);
    assert.deepEqual(r.config.args, ['${NOPE}']);
  });

  it('each scope uses its own file syntax', () => {
    assert.equal(syntaxOfScope('user'), 'settings');
    assert.equal(syntaxOfScope('workspace'), 'settings');
    assert.equal(syntaxOfScope('system'), 'settings');
    assert.equal(syntaxOfScope('project'), 'claude');
    assert.equal(syntaxOfScope('cli'), 'claude');
    assert.equal(syntaxOfScope('session'), 'none');
    // A file with a syntax of its own (mcpctl's server file: user scope, .mcp.json syntax).
    assert.equal(syntaxOfServer({ scope: 'user', syntax: 'claude' }), 'claude');
    assert.equal(syntaxOfServer({ scope: 'user' }), 'settings');
  });
});

describe('redact with references', { timeout: 10_000 }, () => {
  it('shows a reference as the file wrote it, redacts every literal', () => {
    const spec = redact(
      {
        command: 'n',
        env: { A: '${GITHUB_TOKEN}', B: 'ghp_literal', C: 'x${T}', D: '$T' },
        headers: { Authorization: 'Bearer ${TOKEN}', X: 'Bearer abc' },
      },
      'claude',
    );
    assert.deepEqual(spec.env, { A: '${GITHUB_TOKEN}', B: REDACTED, C: REDACTED, D: REDACTED });
    assert.deepEqual(spec.headers, { Authorization: 'Bearer ${TOKEN}', X: REDACTED });
    // In a settings file `$T` is a reference.
    assert.deepEqual(redact({ command: 'n', env: { D: '$T' } }, 'settings').env, { D: '$T' });
    // Without a syntax (no file), everything is redacted as before.
    assert.deepEqual(redact({ command: 'n', env: { A: '${T}' } }).env, { A: REDACTED });
  });
});

describe('scrubSecrets', { timeout: 10_000 }, () => {
  it('replaces every occurrence, longest first, and leaves short values alone', () => {
    assert.equal(
      scrubSecrets('token=sekrit-abc and sekrit-abc-long; id=7', [
        'sekrit-abc',
        'sekrit-abc-long',
        '7',
      ]),
      `token=${REDACTED} and ${REDACTED}; id=7`,
    );
  });
});
