/**
 * A server that needs an OAuth login (issue 16): Ready=False Unauthorized with the login action,
 * no back-off retries while nobody logs in (reload and edits of other servers included), and
 * one fresh try when a login happened.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createPool, UnauthorizedConnectError } from '../pool/index.js';
import type { Connector } from '../pool/types.js';
import { inMemoryConnector } from '../pool/testing/in-memory.js';
import { condition, harness, servers, sleep, type Harness } from './testing/harness.js';
import { until } from '../testing/until.js';

describe('session: a server that needs an OAuth login', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it(
    'waits in Unauthorized without retrying, and tries again after a login',
    { timeout: 30_000 },
    async () => {
      let signedIn = false;
      let attempts = 0;
      const memory = inMemoryConnector(() => {
        const s = new McpServer({ name: 'remote', version: '1.0.0' });
        s.registerTool('whoami', { description: 'who' }, () => ({ content: [] }));
        return s;
      });
      const connector: Connector = (ticket, signal) => {
        attempts += 1;
        if (!signedIn)
          return Promise.reject(
            new UnauthorizedConnectError(
              ticket.name,
              'asks for an OAuth sign-in (mcpctl login remote)',
            ),
          );
        return memory.connector(ticket, signal);
      };
      h = await harness({ pool: createPool({ connector, drainDelayMs: 0 }) });
      h.write(h.files.user, servers({ remote: { httpUrl: 'http://127.0.0.1:9/mcp' } }));
      const session = await h.session();
      await until(
        'Unauthorized',
        () => condition(session.kind('McpServer').get('remote'), 'Ready') === 'False/Unauthorized',
      );
      assert.equal(session.kind('McpServer').why('remote').reason, 'Unauthorized');
      assert.match(session.kind('McpServer').why('remote').action, /mcpctl login remote/);
      assert.equal(attempts, 1);

      // Back-off here is 50–400 ms: a crash loop would have retried several times by now.
      await sleep(1000);
      await session.reload();
      assert.equal(attempts, 1, 'no retry while nobody logged in, reload included');
      assert.equal(
        session.eventList().filter((e) => e.reason === 'Unauthorized').length,
        1,
        'one event, not one per pass',
      );

      signedIn = true;
      await session.loginsChanged();
      assert.equal(condition(session.kind('McpServer').get('remote'), 'Ready'), 'True/Connected');
      assert.equal(attempts, 2);
    },
  );

  it(
    'a server disabled and enabled again while waiting for a login says Unauthorized again',
    { timeout: 30_000 },
    async () => {
      let attempts = 0;
      const connector: Connector = (ticket) => {
        attempts += 1;
        return Promise.reject(
          new UnauthorizedConnectError(ticket.name, 'asks for an OAuth sign-in'),
        );
      };
      h = await harness({ pool: createPool({ connector, drainDelayMs: 0 }) });
      const config = { httpUrl: 'http://127.0.0.1:9/mcp' };
      h.write(h.files.user, servers({ remote: config }));
      const session = await h.session();
      await until(
        'Unauthorized',
        () => condition(session.kind('McpServer').get('remote'), 'Ready') === 'False/Unauthorized',
      );
      h.write(h.files.user, servers({ remote: { ...config, disabled: true } }));
      await until(
        'NotAdmitted',
        () => condition(session.kind('McpServer').get('remote'), 'Ready') === 'False/NotAdmitted',
      );
      h.write(h.files.user, servers({ remote: config }));
      await until(
        'Unauthorized again',
        () => condition(session.kind('McpServer').get('remote'), 'Ready') === 'False/Unauthorized',
      );
      assert.equal(attempts, 2);
    },
  );

  it(
    'loginRequired is announced once per stretch of waiting, after the pass, and again after a sign-in was lost',
    { timeout: 30_000 },
    async () => {
      let signedIn = false;
      const memory = inMemoryConnector(() => {
        const s = new McpServer({ name: 'remote', version: '1.0.0' });
        s.registerTool('whoami', { description: 'who' }, () => ({ content: [] }));
        return s;
      });
      const connector: Connector = (ticket, signal) =>
        signedIn
          ? memory.connector(ticket, signal)
          : Promise.reject(new UnauthorizedConnectError(ticket.name, 'asks for an OAuth sign-in'));
      h = await harness({ pool: createPool({ connector, drainDelayMs: 0 }) });
      const config = { httpUrl: 'http://127.0.0.1:9/mcp' };
      const other = { httpUrl: 'http://127.0.0.1:9/other' };
      h.write(h.files.user, servers({}));
      const session = await h.session();
      const heard: { name: string; ready: string | undefined }[] = [];
      session.on('loginRequired', (name) =>
        heard.push({ name, ready: condition(session.kind('McpServer').get(name), 'Ready') }),
      );
      h.write(h.files.user, servers({ remote: config, other }));
      await until('both announced', () => heard.length === 2);
      assert.deepEqual(heard.map((e) => e.name).sort(), ['other', 'remote']);
      assert.ok(
        heard.every((e) => e.ready === 'False/Unauthorized'),
        'after the pass: the status already says Unauthorized',
      );

      // Someone's login (for another server) retries every waiting server: still waiting, so
      // nothing new is announced; neither does a reload.
      await session.loginsChanged();
      await session.reload();
      await sleep(200);
      assert.equal(heard.length, 2, 'no new announcement while the wait goes on');

      // Disabled and enabled again: a new stretch of waiting.
      h.write(h.files.user, servers({ remote: { ...config, disabled: true }, other }));
      await until(
        'NotAdmitted',
        () => condition(session.kind('McpServer').get('remote'), 'Ready') === 'False/NotAdmitted',
      );
      h.write(h.files.user, servers({ remote: config, other }));
      await until('announced again', () => heard.length === 3);
      assert.equal(heard[2].name, 'remote');

      // Signed in (Ready), then the grant is gone: announced once more.
      signedIn = true;
      await session.loginsChanged();
      assert.equal(condition(session.kind('McpServer').get('remote'), 'Ready'), 'True/Connected');
      assert.equal(heard.length, 3, 'a server that signed in is not announced');
      // A new config that reconnects from scratch (Recreate) and finds no grant.
      signedIn = false;
      h.write(
        h.files.user,
        servers({ remote: { ...config, updateStrategy: 'Recreate', timeout: 1234 }, other }),
      );
      await until('announced after the sign-in was lost', () => heard.length === 4);
    },
  );
});
