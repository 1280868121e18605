import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RPC_LIMITS, RPC_LIMITS_ENV, RpcLimitsError, limitsFromEnv } from './limits.js';

describe('socket limits', () => {
  it('every default is a finite, positive bound', () => {
    for (const [name, value] of Object.entries(DEFAULT_RPC_LIMITS)) {
      assert.ok(Number.isSafeInteger(value) && value > 0, `${name}=${value}`);
    }
    // Together they bound what clients can make the daemon hold for unfinished messages.
    assert.ok(DEFAULT_RPC_LIMITS.maxBufferedBytes <= 256 * 1024 * 1024);
    assert.ok(DEFAULT_RPC_LIMITS.maxLineBytes <= DEFAULT_RPC_LIMITS.maxBufferedBytes);
    assert.ok(DEFAULT_RPC_LIMITS.maxConnections <= 4096);
    assert.ok(DEFAULT_RPC_LIMITS.idleFrameMs <= 5 * 60_000);
    assert.ok(DEFAULT_RPC_LIMITS.maxBatch <= 1000);
    // Past V8's string limit (~512 Mi UTF-16 units) an answer cannot even be built.
    assert.ok(DEFAULT_RPC_LIMITS.maxResponseBytes < 512 * 1024 * 1024);
  });

  it('MCPCTL_RPC_LIMITS lowers limits, and only lowers them', () => {
    assert.equal(limitsFromEnv({}), DEFAULT_RPC_LIMITS);
    assert.equal(limitsFromEnv({ [RPC_LIMITS_ENV]: ' ' }), DEFAULT_RPC_LIMITS);
    const lowered = limitsFromEnv({ [RPC_LIMITS_ENV]: 'maxBatch=3, idleFrameMs=500' });
    assert.deepEqual(lowered, { ...DEFAULT_RPC_LIMITS, maxBatch: 3, idleFrameMs: 500 });
    assert.throws(
      () => limitsFromEnv({ [RPC_LIMITS_ENV]: `maxBatch=${DEFAULT_RPC_LIMITS.maxBatch + 1}` }),
      (e: Error) => e instanceof RpcLimitsError && /can only lower/.test(e.message),
    );
    for (const bad of ['maxBatch=0', 'maxBatch=-1', 'maxBatch=1.5', 'maxBatch=', 'maxBatch=1e2'])
      assert.throws(() => limitsFromEnv({ [RPC_LIMITS_ENV]: bad }), RpcLimitsError, bad);
    assert.throws(
      () => limitsFromEnv({ [RPC_LIMITS_ENV]: 'toString=1' }),
      (e: Error) =>
        e instanceof RpcLimitsError && /unknown limit 'toString'.*maxBatch/.test(e.message),
    );
  });
});
