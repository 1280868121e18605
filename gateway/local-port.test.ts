/**
 * LocalSessionPort's Warning events: a fact about the session is recorded once, however many
 * agent connections (each with its own port and gateway) find it.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { harness, type Harness } from '../controller/testing/harness.js';
import { LocalSessionPort } from './local-port.js';

const T = { timeout: 30_000 };

describe('LocalSessionPort.warn', T, () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('records a warning once per session, not once per agent connection', T, async () => {
    const session = await h.session();
    const ports = [new LocalSessionPort(session), new LocalSessionPort(session)];
    try {
      for (const port of ports) port.warn('low', 'DuplicateResource', 'both list x://1');
      ports[0].warn('low', 'DuplicateResource', 'both list x://2');
      const warnings = session.events
        .list((e) => e.reason === 'DuplicateResource')
        .map((e) => ({
          type: e.type,
          object: e.involvedObject,
          message: e.message,
          count: e.count,
        }));
      assert.deepEqual(warnings, [
        { type: 'Warning', object: 'server/low', message: 'both list x://1', count: 1 },
        { type: 'Warning', object: 'server/low', message: 'both list x://2', count: 1 },
      ]);
    } finally {
      for (const port of ports) await port.close();
    }
  });
});
