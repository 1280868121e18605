import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RPC_LIMITS } from '../rpc/limits.js';
import { HttpLimitsError, defaultHttpLimits, httpLimitsFromEnv } from './limits.js';

describe('http limits', () => {
  const defaults = defaultHttpLimits(DEFAULT_RPC_LIMITS);

  it("follow the socket's: the one message limit, unread bytes, requests in flight", () => {
    assert.equal(defaults.maxBodyBytes, DEFAULT_RPC_LIMITS.maxLineBytes);
    assert.equal(defaults.maxStreamBufferedBytes, DEFAULT_RPC_LIMITS.maxPendingWriteBytes);
    assert.equal(defaults.maxSessionUnreadBytes, DEFAULT_RPC_LIMITS.maxPendingWriteBytes);
    assert.equal(defaults.maxUnreadBytes, 2 * DEFAULT_RPC_LIMITS.maxPendingWriteBytes);
    assert.equal(defaults.maxRequestsInFlight, DEFAULT_RPC_LIMITS.maxRequestsInFlight);
    for (const [name, value] of Object.entries(defaults))
      assert.ok(Number.isFinite(value) && value > 0, name);
  });

  it('MCPCTL_HTTP_LIMITS lowers, never raises, and names a bad entry', () => {
    const lowered = httpLimitsFromEnv(defaults, {
      MCPCTL_HTTP_LIMITS: 'maxSessions=2, idleSessionMs=300',
    });
    assert.equal(lowered.maxSessions, 2);
    assert.equal(lowered.idleSessionMs, 300);
    assert.equal(httpLimitsFromEnv(defaults, {}), defaults);
    assert.throws(
      () =>
        httpLimitsFromEnv(defaults, {
          MCPCTL_HTTP_LIMITS: `maxSessions=${defaults.maxSessions + 1}`,
        }),
      HttpLimitsError,
    );
    assert.throws(
      () => httpLimitsFromEnv(defaults, { MCPCTL_HTTP_LIMITS: 'nope=1' }),
      /unknown limit 'nope'/,
    );
    assert.throws(
      () => httpLimitsFromEnv(defaults, { MCPCTL_HTTP_LIMITS: 'maxSessions=0' }),
      /from 1 to/,
    );
  });
});
