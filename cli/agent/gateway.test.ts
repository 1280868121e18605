import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { gatewayLog, openInertAgentGateway } from './gateway.js';

test('a gateway log line says whose gateway it is', () => {
  const lines: string[] = [];
  gatewayLog('agent (serve pid 7) of session s1', (line) => lines.push(line))('cannot serve');
  assert.deepEqual(lines, ['gateway of agent (serve pid 7) of session s1: cannot serve']);
});

test('an inert gateway offers nothing, not even the meta tools', { timeout: 10_000 }, async () => {
  const gateway = openInertAgentGateway('started by mcpctl itself', {
    version: '0.0.0-test',
    log: () => undefined,
  });
  const client = new Client({ name: 'agent', version: '1.0.0' });
  const [agentSide, gatewaySide] = InMemoryTransport.createLinkedPair();
  try {
    await gateway.connect(gatewaySide);
    await client.connect(agentSide);
    assert.deepEqual((await client.listTools()).tools, []);
    const answer = await client.callTool({
      name: 'mcpctl_find_tools',
      arguments: { query: 'x' },
    });
    assert.equal(answer.isError, true);
    assert.match(JSON.stringify(answer.content), /no tool named mcpctl_find_tools/);
  } finally {
    await client.close();
    await gateway.close();
  }
});
