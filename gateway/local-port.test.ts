/**
 * LocalSessionPort's Warning events: a fact about the session is recorded once, however many
 * agent connections (each with its own port and gateway) find it. Its list-changed follows
 * the language servers the `lsp_*` tools are listed for.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { LspTarget } from '../controller/lsp-target.js';
import { harness, servers, type Harness } from '../controller/testing/harness.js';
import type { LspConnection } from '../lsp/connection.js';
import { until } from '../testing/until.js';
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

describe('LocalSessionPort and language servers', T, () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
  });
  afterEach(async () => {
    await h.close();
  });

  it(
    "gives the session's targets (as views), and announces a burst that made one Ready",
    T,
    async () => {
      const session = await h.session();
      const plain = new LocalSessionPort(session);
      // A session without language servers (before the session offers them) has none.
      assert.deepEqual(await plain.languageServers(), []);
      await plain.close();

      let targets: LspTarget[] = [];
      const ts: LspTarget = {
        name: 'typescript',
        extensionToLanguage: { '.ts': 'typescript' },
        connection: { name: 'typescript' } as unknown as LspConnection,
      };
      const port = new LocalSessionPort(Object.assign(session, { lspTargets: () => targets }));
      let announced = 0;
      port.onListChanged(() => {
        announced += 1;
      });
      try {
        targets = [ts];
        assert.deepEqual(await port.languageServers(), [
          { name: 'typescript', extensionToLanguage: { '.ts': 'typescript' }, ready: true },
        ]);
        // A burst that changes no MCP server's tools (this one cannot start) but after which a
        // language server is Ready: the lsp_* tools appeared, so it is announced.
        h.write(h.files.user, servers({ broken: { command: '/nonexistent/mcpctl-test' } }));
        await until('list_changed for the Ready language server', () => announced === 1);
      } finally {
        await port.close();
      }
    },
  );
});
