/**
 * A Connector on the SDK's InMemoryTransport, for tests and the bench: real MCP protocol,
 * no processes, no sockets.
 *
 * Guarantees:
 * - Each call builds a fresh server with `makeServer(ticket)` and connects a Client to it
 *   through a linked InMemoryTransport pair; the signal cancels the initialize request; the
 *   pool's ClientSetup runs on the Client first, as with the real connector.
 * - `servers` lists every server built, in order, with the ticket it was built for, so a test
 *   can count connects or make a server "crash" (`crash()` closes its side: the pool sees the
 *   connection close, as when a process exits).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AdmissionTicket } from '../ticket.js';
import type { Connector } from '../types.js';

export interface InMemoryServer {
  readonly ticket: AdmissionTicket;
  readonly server: McpServer | Server;
  /** Ends the connection from the server side. */
  crash(): Promise<void>;
}

export interface InMemoryConnector {
  readonly connector: Connector;
  readonly servers: InMemoryServer[];
}

export function inMemoryConnector(
  makeServer: (ticket: AdmissionTicket) => McpServer | Server | Promise<McpServer | Server>,
): InMemoryConnector {
  const servers: InMemoryServer[] = [];
  const connector: Connector = async (ticket, signal, setup) => {
    const server = await makeServer(ticket);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    servers.push({ ticket, server, crash: () => serverSide.close() });
    const client = new Client({ name: 'mcpctl-test', version: '0.0.0' }, { capabilities: {} });
    setup?.(client);
    try {
      await client.connect(clientSide, { signal });
    } catch (err) {
      await server.close();
      throw err;
    }
    return { client, transport: clientSide, pid: undefined, stderrTail: () => [] };
  };
  return { connector, servers };
}
