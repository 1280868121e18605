/**
 * e2e (issue #26): the endpoint's fast path (cli/http/fast-path.ts), a plain request on a
 * served session answered as one `application/json` response. It must keep every check of the
 * endpoint (token, Host/Origin, session), answer what the transport's event stream answers, and
 * end the response of a call that was cancelled.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { TestEnv } from './harness.js';
import {
  MCP_POST_HEADERS,
  rawInitialize,
  rawRequest,
  startHttpDaemon,
  type HttpDaemon,
  type RawAnswer,
} from './http-agent.js';
import { until } from '../testing/until.js';

const T = { timeout: 120_000 };

/** The headers of a request in session `session` (with the token unless `token` is given). */
const inSession = (http: HttpDaemon, session: string, extra: Record<string, string> = {}) => ({
  ...MCP_POST_HEADERS,
  Authorization: `Bearer ${http.token}`,
  'Mcp-Session-Id': session,
  'Mcp-Protocol-Version': '2025-11-25',
  ...extra,
});

const post = (http: HttpDaemon, headers: Record<string, string>, body: unknown) =>
  rawRequest(http.url, { headers, body: JSON.stringify(body) });

/** The JSON-RPC message of an answer, from a JSON body or the first SSE event with one. */
function messageOf(answer: RawAnswer): { id?: unknown; result?: unknown; error?: unknown } {
  if (String(answer.headers['content-type']).startsWith('application/json'))
    return JSON.parse(answer.body) as { result?: unknown };
  const data = /^data: (\{.*"(?:result|error)".*)$/m.exec(answer.body)?.[1];
  assert.ok(data, `an event with an answer: ${answer.body}`);
  return JSON.parse(data) as { result?: unknown };
}

const call = (id: number, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'plain__echo', arguments: { n: id }, ...(meta ? { _meta: meta } : {}) },
});

describe('HTTP fast path (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'a plain call gets JSON equal to the stream answer; no token 401, a foreign Host or Origin 403, a foreign session 404; a cancelled call ends empty',
    T,
    async () => {
      env.write(env.userSettingsPath, {
        mcpServers: { plain: env.fixture('plain', ['--tools=echo,sleep']) },
      });
      const http = await startHttpDaemon(env);
      const session = await rawInitialize(http);
      const initialized = await post(http, inSession(http, session), {
        jsonrpc: '2.0',
        method: 'notifications/initialized',
      });
      assert.equal(initialized.status, 202, initialized.body);
      await until('the echo to be listed', async () => {
        const list = await post(http, inSession(http, session), {
          jsonrpc: '2.0',
          id: 0,
          method: 'tools/list',
        });
        return JSON.stringify(messageOf(list)).includes('plain__echo');
      });

      // The fast path: one JSON answer, with the session's id.
      const fast = await post(http, inSession(http, session), call(1));
      assert.equal(fast.status, 200, fast.body);
      assert.match(String(fast.headers['content-type']), /^application\/json/);
      assert.equal(fast.headers['mcp-session-id'], session);
      const fastMessage = messageOf(fast);
      assert.equal(fastMessage.id, 1);
      assert.match(JSON.stringify(fastMessage.result), /\\"n\\":1/);

      // The same call asking for progress takes the transport (an event stream): same answer.
      const slow = await post(http, inSession(http, session), call(1, { progressToken: 'p' }));
      assert.equal(slow.status, 200, slow.body);
      assert.match(String(slow.headers['content-type']), /^text\/event-stream/);
      assert.deepEqual(messageOf(slow), fastMessage);

      // Every check still applies to a request the fast path would take.
      const port = new URL(http.url).port;
      const refused: [Record<string, string>, number][] = [
        [inSession(http, session, { Authorization: '' }), 401],
        [inSession(http, session, { Authorization: 'Bearer wrong' }), 401],
        [inSession(http, session, { Host: `evil.example:${port}` }), 403],
        [inSession(http, session, { Origin: 'http://evil.example' }), 403],
        [inSession(http, session, { 'Mcp-Session-Id': 'not-a-session' }), 404],
        // What the transport refuses, it still refuses: the fast path never takes it.
        [inSession(http, session, { Accept: 'application/json' }), 406],
        [inSession(http, session, { 'Content-Type': 'text/plain' }), 415],
        [inSession(http, session, { 'Mcp-Protocol-Version': '1999-01-01' }), 400],
      ];
      for (const [headers, status] of refused) {
        const answer = await post(http, headers, call(2));
        assert.equal(answer.status, status, `${JSON.stringify(headers)}: ${answer.body}`);
        assert.doesNotMatch(answer.body, /"result"/, 'no call was served');
      }
      // A call cancelled while it runs gets no answer: its response ends, empty, at once.
      const marker = path.join(env.root, 'sleeping');
      const sleeping = post(http, inSession(http, session), {
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'plain__sleep', arguments: { ms: 60_000, marker } },
      });
      await until('the call to run', () => existsSync(marker));
      const cancel = await post(http, inSession(http, session), {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 9, reason: 'e2e' },
      });
      assert.equal(cancel.status, 202, cancel.body);
      const cancelled = await sleeping;
      assert.equal(cancelled.status, 200);
      assert.match(String(cancelled.headers['content-type']), /^text\/event-stream/);
      assert.equal(cancelled.body, '');

      const again = await post(http, inSession(http, session), call(3));
      assert.deepEqual(
        JSON.stringify(messageOf(again).result),
        JSON.stringify(fastMessage.result).replace('\\"n\\":1', '\\"n\\":3'),
      );
    },
  );
});
