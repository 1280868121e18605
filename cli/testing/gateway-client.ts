/**
 * An agent on the daemon socket, for tests: the `gateway.open` line, then an SDK client
 * `Transport` over the same connection (one JSON-RPC message per line), as `mcpctl serve`'s
 * pipe makes it look to the daemon.
 */
import { connect, type Socket } from 'node:net';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineReader } from '../rpc/protocol.js';

/** The agent's side of an MCP connection over a socket. */
export class SocketClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Every line the daemon sent after its answer, as received. */
  readonly lines: string[] = [];
  readonly #reader = new LineReader(256 * 1024 * 1024);

  constructor(
    readonly socket: Socket,
    /** Lines (or a partial one) that came with the answer. */
    private readonly rest: Buffer,
  ) {}

  start(): Promise<void> {
    this.socket.on('data', (chunk: Buffer) => this.#take(chunk));
    this.socket.once('close', () => this.onclose?.());
    if (this.rest.length > 0) this.#take(this.rest);
    this.socket.resume();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.socket.write(`${JSON.stringify(message)}\n`);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.end();
    });
  }

  #take(chunk: Buffer): void {
    for (const line of this.#reader.push(chunk)) {
      this.lines.push(line);
      try {
        this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
      } catch (err) {
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }
}

export interface OpenedGateway {
  readonly sessionId: string;
  readonly transport: SocketClientTransport;
}

/** A raw connection to `socketPath`, errors swallowed ('close' tells the tests). */
export function rawConnect(socketPath: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    socket.once('connect', () => {
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Reads one line from `socket` (its first answer); resolves with it and what followed, or
 * with `line: undefined` when the socket closed first.
 */
export function readLine(socket: Socket): Promise<{ line: string | undefined; rest: Buffer }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => {
      const nl = chunk.indexOf(10);
      if (nl < 0) {
        chunks.push(chunk);
        return;
      }
      chunks.push(chunk.subarray(0, nl));
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      resolve({ line: Buffer.concat(chunks).toString('utf8'), rest: chunk.subarray(nl + 1) });
    };
    const onClose = () => {
      socket.off('data', onData);
      resolve({ line: undefined, rest: Buffer.alloc(0) });
    };
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}

/** Opens a gateway as `mcpctl serve` does; rejects with the daemon's error message. */
export async function openGatewayClient(
  socketPath: string,
  params: Record<string, unknown>,
): Promise<OpenedGateway> {
  const socket = await rawConnect(socketPath);
  const answer = readLine(socket);
  socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'gateway.open', params })}\n`);
  const { line, rest } = await answer;
  if (line === undefined) {
    socket.destroy();
    throw new Error('the daemon closed the connection before answering gateway.open');
  }
  const reply = JSON.parse(line) as {
    result?: { sessionId: string };
    error?: { code: number; message: string };
  };
  if (!reply.result) {
    socket.destroy();
    throw new Error(`gateway.open refused: ${reply.error?.code} ${reply.error?.message}`);
  }
  return { sessionId: reply.result.sessionId, transport: new SocketClientTransport(socket, rest) };
}
