/**
 * In-memory MCP servers whose answers arrive like I/O: on a later turn of the event loop.
 *
 * Why: the SDK's InMemoryTransport delivers every message synchronously, so a whole connect
 * (initialize, tools/list, …) of an in-memory server runs as one chain of microtasks. Nothing
 * else in the process runs meanwhile: no agent request, no 1 ms sampling timer. A tool gap
 * inside such a chain is real wall time, but no reader could ever see it. Over a pipe or a
 * socket every answer is a new event-loop turn, and a gap is visible to whoever asks. Deferring
 * server → client delivery with setImmediate gives in-memory servers that property, at almost
 * no cost, so the gap figures measure what an agent would see.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type {
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Connector } from '../pool/types.js';

/** The client's end of a linked in-memory pair, receiving on the next event-loop turn. */
class DeferredTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  constructor(private readonly inner: InMemoryTransport) {
    inner.onmessage = (message, extra) => setImmediate(() => this.onmessage?.(message, extra));
    inner.onclose = () => setImmediate(() => this.onclose?.());
    inner.onerror = (error) => this.onerror?.(error);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export function ioConnector(makeServer: () => McpServer): Connector {
  return async (_ticket, signal, setup) => {
    const server = makeServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const transport = new DeferredTransport(clientSide);
    const client = new Client({ name: 'mcpctl-bench', version: '0.0.0' }, { capabilities: {} });
    setup?.(client);
    try {
      await client.connect(transport, { signal });
    } catch (err) {
      await server.close();
      throw err;
    }
    return { client, transport, pid: undefined, stderrTail: () => [] };
  };
}
