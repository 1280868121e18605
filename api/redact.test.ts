import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDACTED, hostOfUrl, redact, redactUrl, scrubUrl } from './redact.js';
import type { McpServerConfig } from './server-config.js';

describe('redact', { timeout: 10_000 }, () => {
  it('replaces env and header values, keeping their keys and every other field', () => {
    const spec: McpServerConfig = {
      command: 'node',
      args: ['--token', 'visible-arg'],
      env: { TOKEN: 's3cret', MODE: 'prod' },
      headers: { Authorization: 'Bearer abc' },
    };
    assert.deepEqual(redact(spec), {
      command: 'node',
      args: ['--token', 'visible-arg'],
      env: { TOKEN: REDACTED, MODE: REDACTED },
      headers: { Authorization: REDACTED },
    });
    assert.equal(REDACTED, '<redacted>');
  });

  it('does not change the spec it was given', () => {
    const spec: McpServerConfig = { command: 'node', env: { TOKEN: 's3cret' } };
    redact(spec);
    assert.deepEqual(spec.env, { TOKEN: 's3cret' });
  });

  it('redacts secret-looking oauth fields only', () => {
    const out = redact({
      httpUrl: 'https://a.test',
      oauth: { clientId: 'app', clientSecret: 'x', authorizationUrl: 'https://a.test/auth' },
    });
    assert.deepEqual(out.oauth, {
      clientId: 'app',
      clientSecret: REDACTED,
      authorizationUrl: 'https://a.test/auth',
    });
  });

  it('adds no env or headers that were not there', () => {
    const out = redact({ command: 'node' });
    assert.deepEqual(out, { command: 'node' });
    assert.equal('env' in out, false);
  });
});

describe('redactUrl / scrubUrl', { timeout: 10_000 }, () => {
  it('hides userinfo, query values and fragment, keeping what says where it goes', () => {
    const cases: Array<[string, string]> = [
      ['https://mcp.test/mcp', 'https://mcp.test/mcp'],
      ['https://mcp.test/mcp?token=abc', 'https://mcp.test/mcp?token=<redacted>'],
      [
        'https://mcp.test:8443/v1/mcp?api_key=k1&mode=x&flag',
        'https://mcp.test:8443/v1/mcp?api_key=<redacted>&mode=<redacted>&<redacted>',
      ],
      ['https://user:pass@mcp.test/', 'https://<redacted>@mcp.test/'],
      ['https://ghp_tokenonly@github.test/mcp', 'https://<redacted>@github.test/mcp'],
      ['https://mcp.test/cb#access_token=xyz', 'https://mcp.test/cb#<redacted>'],
      ['not a url ?token=abc', '<redacted>'],
    ];
    for (const [url, shown] of cases) assert.equal(redactUrl(url), shown, url);
  });

  it('redact() applies it to url and httpUrl', () => {
    assert.deepEqual(
      redact({ url: 'https://u:p@a.test/sse?t=1', httpUrl: 'https://a.test/mcp?key=s3cr3t' }),
      {
        url: 'https://<redacted>@a.test/sse?t=<redacted>',
        httpUrl: 'https://a.test/mcp?key=<redacted>',
      },
    );
  });

  it('scrubs the URL, its secrets alone and any credentials from a message', () => {
    const url = 'https://bob:hunter22@mcp.test/mcp?token=tok-123456&x=1#frag-secret';
    const message = [
      `fetch ${url} failed`,
      `fetch ${new URL(url).href} failed`,
      'server said: invalid token tok-123456',
      'password hunter22 rejected; fragment frag-secret',
      'retry via https://alice:pw@other.test/',
    ].join('\n');
    const out = scrubUrl(message, url);
    for (const secret of ['hunter22', 'tok-123456', 'frag-secret', 'alice:pw']) {
      assert.ok(!out.includes(secret), `${secret} in:\n${out}`);
    }
    assert.match(
      out,
      /fetch https:\/\/<redacted>@mcp\.test\/mcp\?token=<redacted>&x=<redacted>#<redacted> failed/,
    );
    assert.match(out, /retry via https:\/\/<redacted>@other\.test\//);
  });
});

describe('the file text of a URL (references shown, literals hidden)', { timeout: 10_000 }, () => {
  it('shows a part that is only references, in the syntax of its file', () => {
    const cases: Array<[string, 'settings' | 'claude' | 'none', string]> = [
      ['https://h.test/mcp?k=${KEY}&t=lit', 'claude', 'https://h.test/mcp?k=${KEY}&t=<redacted>'],
      ['https://h.test/mcp?k=$KEY', 'settings', 'https://h.test/mcp?k=$KEY'],
      // `$KEY` is text in a .mcp.json: a literal value.
      ['https://h.test/mcp?k=$KEY', 'claude', 'https://h.test/mcp?k=<redacted>'],
      ['https://h.test/mcp?k=pre${KEY}', 'claude', 'https://h.test/mcp?k=<redacted>'],
      ['https://${U}:${P}@h.test/', 'claude', 'https://${U}:${P}@h.test/'],
      ['https://${U}:pw@h.test/', 'claude', 'https://<redacted>@h.test/'],
      ['https://${HOST}/v/${V}#${F}', 'claude', 'https://${HOST}/v/${V}#${F}'],
      ['${MCP_URL}', 'claude', '${MCP_URL}'],
      ['https://h.test/mcp?k=${KEY}', 'none', 'https://h.test/mcp?k=<redacted>'],
      ['https://h.test/mcp?mcpctlref0z=${KEY}', 'claude', 'https://h.test/mcp?mcpctlref0z=${KEY}'],
    ];
    for (const [url, syntax, shown] of cases) assert.equal(redactUrl(url, syntax), shown, url);
  });

  it('names the host a URL reaches as the file writes it', () => {
    assert.equal(hostOfUrl('http://127.0.0.1:8080/mcp?k=${K}', 'claude'), '127.0.0.1:8080');
    assert.equal(hostOfUrl('https://${HOST}/mcp', 'claude'), '${HOST}');
    assert.equal(hostOfUrl('${URL}', 'claude'), undefined);
    assert.equal(hostOfUrl('not a url', 'claude'), undefined);
  });

  it('redact() shows oauth endpoints and a referenced secret, hides a literal one', () => {
    const spec: McpServerConfig = {
      httpUrl: 'https://a.test/mcp?key=${KEY}',
      oauth: {
        clientSecret: '${CORP_SECRET}',
        tokenUrl: 'https://other.test/token?x=lit',
        registrationUrl: 42,
      },
    };
    assert.deepEqual(redact(spec, 'settings'), {
      httpUrl: 'https://a.test/mcp?key=${KEY}',
      oauth: {
        clientSecret: '${CORP_SECRET}',
        tokenUrl: 'https://other.test/token?x=<redacted>',
        registrationUrl: REDACTED,
      },
    });
    // A .mcp.json does not expand `oauth`: there `${CORP_SECRET}` is the literal secret.
    assert.equal(redact(spec, 'claude').oauth?.clientSecret, REDACTED);
    assert.equal(redact(spec, 'claude').httpUrl, 'https://a.test/mcp?key=${KEY}');
  });
});
