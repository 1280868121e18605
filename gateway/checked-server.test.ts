import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CompleteRequestSchema,
  ListPromptsRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { CheckedServer, paramsProblem } from './checked-server.js';

const T = { timeout: 10_000 };

/** A CheckedServer on an in-memory pair; `ask` sends one raw request and returns its answer. */
async function serverWith(): Promise<{
  server: CheckedServer;
  seen: unknown[];
  ask(method: string, params?: unknown): Promise<JSONRPCMessage>;
  close(): Promise<void>;
}> {
  const server = new CheckedServer(
    { name: 't', version: '1' },
    { capabilities: { prompts: {}, completions: {}, logging: {} } },
  );
  const seen: unknown[] = [];
  server.setRequestHandler(ListPromptsRequestSchema, (request) => {
    seen.push(request);
    return { prompts: [] };
  });
  server.setRequestHandler(CompleteRequestSchema, () => ({
    completion: { values: ['x'], hasMore: false },
  }));
  const [client, side] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<unknown, (m: JSONRPCMessage) => void>();
  client.onmessage = (m) => {
    if ('id' in m) waiting.get(m.id)?.(m);
  };
  await server.connect(side);
  await client.start();
  let next = 0;
  return {
    server,
    seen,
    ask(method, params) {
      const id = (next += 1);
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        void client.send({
          jsonrpc: '2.0',
          id,
          method,
          ...(params === undefined ? {} : { params }),
        } as JSONRPCMessage);
      });
    },
    close: () => server.close(),
  };
}

const errorOf = (m: JSONRPCMessage) =>
  'error' in m ? { code: m.error.code, message: m.error.message } : undefined;

describe('CheckedServer', () => {
  it(
    'answers bad params of the SDK’s own and the gateway’s handlers -32602, in one line',
    T,
    async () => {
      const s = await serverWith();
      try {
        assert.deepEqual(errorOf(await s.ask('initialize', {})), {
          code: -32602,
          message:
            'initialize: params.protocolVersion is missing (a string is expected); params.capabilities is missing (an object is expected); params.clientInfo is missing (an object is expected)',
        });
        assert.deepEqual(errorOf(await s.ask('logging/setLevel', { level: 'loud' })), {
          code: -32602,
          message:
            'logging/setLevel: params.level must be one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"',
        });
        assert.deepEqual(errorOf(await s.ask('prompts/list', { cursor: 5 })), {
          code: -32602,
          message: 'prompts/list: params.cursor must be a string, not a number',
        });
        assert.deepEqual(
          errorOf(
            await s.ask('completion/complete', {
              ref: { type: 'ref/other' },
              argument: { name: 'a', value: 'b' },
            }),
          ),
          {
            code: -32602,
            message:
              'completion/complete: params.ref.type must be one of "ref/prompt", "ref/resource"',
          },
        );
        assert.deepEqual(
          errorOf(
            await s.ask('completion/complete', {
              ref: { type: 'ref/resource', uri: [] },
              argument: { name: 'a', value: 'b' },
            }),
          ),
          {
            code: -32602,
            message: 'completion/complete: params.ref.uri must be a string, not an array',
          },
        );
        assert.deepEqual(s.seen, [], 'no handler ran');
      } finally {
        await s.close();
      }
    },
  );

  it('a valid request reaches its handler as its schema parsed it', T, async () => {
    const s = await serverWith();
    try {
      const answer = await s.ask('prompts/list', { cursor: 'c', extra: 1 });
      assert.deepEqual('result' in answer ? answer.result : answer, { prompts: [] });
      // What the SDK gave handlers before: its schema's output (unknown fields stripped).
      assert.deepEqual(s.seen, [{ method: 'prompts/list', params: { cursor: 'c' } }]);
      const done = await s.ask('completion/complete', {
        ref: { type: 'ref/prompt', name: 'p' },
        argument: { name: 'a', value: 'b' },
      });
      assert.ok('result' in done, JSON.stringify(done));
    } finally {
      await s.close();
    }
  });

  it('names at most three problems and counts the rest', () => {
    const issue = (field: string) => ({
      code: 'invalid_type',
      expected: 'string',
      path: ['params', field],
      message: 'x',
    });
    assert.equal(
      paramsProblem('m', { params: { a: 1 } }, ['a', 'b', 'c', 'd', 'e'].map(issue)),
      'm: params.a must be a string, not a number; params.b is missing (a string is expected); params.c is missing (a string is expected) (and 2 more)',
    );
  });
});
