import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAgentLine, checkAgentMessage, type AgentLine } from './agent-message.js';

const refusal = (r: AgentLine) =>
  r.kind === 'refused' ? { id: r.id, code: r.code } : { kind: r.kind };

describe('checkAgentMessage', () => {
  it('refuses what is not a Request object with -32600: its id when valid, else null', () => {
    const cases: [unknown, unknown][] = [
      [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: true, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: {}, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: [], method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: null, method: 'ping' }, null],
      [{ jsonrpc: '2.0', id: 2 ** 60, method: 'ping' }, null],
      [{ jsonrpc: '1.0', id: 'a', method: 'ping' }, 'a'],
      [{ id: 3, method: 'ping' }, 3],
      [{ jsonrpc: '2.0', id: 'm', method: 123 }, 'm'],
      [{ jsonrpc: '2.0', id: 'p', method: 'ping', params: 'x' }, 'p'],
      [{ jsonrpc: '2.0', id: 'r', method: 'ping', result: {} }, 'r'],
      [{ jsonrpc: '2.0', method: 7 }, null],
      [{ jsonrpc: '1.0', method: 'notifications/initialized' }, null],
      // Responses never lend their id: it is the gateway's own request id.
      [{ jsonrpc: '2.0', id: 7 }, null],
      [{ jsonrpc: '1.0', id: 7, result: {} }, null],
      [{ jsonrpc: '2.0', id: 7, result: 'yes' }, null],
      [{ jsonrpc: '2.0', id: 7, result: {}, error: { code: 1, message: 'x' } }, null],
      [{ jsonrpc: '2.0', id: 7, error: { code: 1.5, message: 'x' } }, null],
      [{ jsonrpc: '2.0', result: {} }, null],
      [[{ jsonrpc: '2.0', id: 1, method: 'ping' }], null],
      [42, null],
      [null, null],
    ];
    for (const [message, id] of cases)
      assert.deepEqual(
        refusal(checkAgentMessage(message)),
        { id, code: -32600 },
        JSON.stringify(message),
      );
  });

  it('refuses params MCP cannot take with -32602 for a request, ignores them for a notification', () => {
    const bad = [
      { params: [1, 2] },
      { params: { _meta: 5 } },
      { params: { _meta: { progressToken: 1.5 } } },
      { params: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 1 } } } },
    ];
    for (const extra of bad) {
      const request = checkAgentMessage({
        jsonrpc: '2.0',
        id: 'q',
        method: 'tools/list',
        ...extra,
      });
      assert.deepEqual(refusal(request), { id: 'q', code: -32602 }, JSON.stringify(extra));
      assert.match(request.kind === 'refused' ? request.message : '', /^tools\/list: params/);
      const notification = checkAgentMessage({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        ...extra,
      });
      assert.deepEqual(notification, { kind: 'ignored' }, 'a notification is never answered');
    }
  });

  it('takes valid messages, rebuilt from the fields JSON-RPC defines', () => {
    const ok: [unknown, unknown][] = [
      [
        { jsonrpc: '2.0', id: 1, method: 'ping', extra: 1 },
        { jsonrpc: '2.0', id: 1, method: 'ping' },
      ],
      [
        {
          jsonrpc: '2.0',
          id: 'x',
          method: 'tools/call',
          params: { name: 'a', _meta: { progressToken: 't' } },
        },
        {
          jsonrpc: '2.0',
          id: 'x',
          method: 'tools/call',
          params: { name: 'a', _meta: { progressToken: 't' } },
        },
      ],
      [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
      ],
      [
        { jsonrpc: '2.0', id: 0, result: { roots: [] } },
        { jsonrpc: '2.0', id: 0, result: { roots: [] } },
      ],
      [
        { jsonrpc: '2.0', id: 4, error: { code: -1, message: 'no', data: { a: 1 } } },
        { jsonrpc: '2.0', id: 4, error: { code: -1, message: 'no', data: { a: 1 } } },
      ],
      [
        { jsonrpc: '2.0', id: null, error: { code: -1, message: 'no' } },
        { jsonrpc: '2.0', error: { code: -1, message: 'no' } },
      ],
    ];
    for (const [given, message] of ok)
      assert.deepEqual(
        checkAgentMessage(given),
        { kind: 'message', message },
        JSON.stringify(given),
      );
  });

  it('a line that is not JSON is -32700 (id null); a blank line is nothing', () => {
    assert.deepEqual(refusal(checkAgentLine('{"jsonrpc":')), { id: null, code: -32700 });
    assert.deepEqual(checkAgentLine('  '), { kind: 'ignored' });
  });

  it('messages are one line and never quote what the agent sent', () => {
    const secret = 'sk-very-secret';
    for (const message of [
      { jsonrpc: secret, id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: { secret }, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: { secret } },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: secret },
      { jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: { secret } } } },
    ]) {
      const r = checkAgentMessage(message);
      assert.equal(r.kind, 'refused');
      const text = r.kind === 'refused' ? r.message : '';
      assert.ok(!text.includes(secret) && !text.includes('\n'), text);
    }
  });
});
