import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDACTED, redact } from './redact.js';
import type { McpServerConfig } from './schema.js';

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
