/**
 * The agent's MCP on this process's stdio, for a gateway that runs in serve itself
 * (`--no-daemon`, and the inert serve): MCP's stdio framing, one JSON-RPC message per line.
 * It replaces the SDK's StdioServerTransport, which drops every line its schemas refuse
 * without an answer.
 *
 * Guarantees:
 * - Every line is checked as the daemon's agent connections check it
 *   (gateway/agent-message.ts): what is not one valid JSON-RPC 2.0 message is answered with its
 *   error (-32700, -32600, -32602; id null unless the request's own id is valid) and dropped;
 *   a valid notification is never answered; the connection goes on.
 * - A line longer than `maxLineBytes` is answered -32600 (id null) and ends the connection (its
 *   bytes are not held).
 * - What it sends fits what the agent reads (`maxSendBytes`, MAX_AGENT_STDIO_MESSAGE_BYTES): an
 *   answer past it becomes the size error for its id (-32005), anything else past it is not
 *   sent (`send` rejects); see cli/agent-message-size.ts.
 * - `send` resolves once its line is written or, past the stream's high-water mark, drained.
 * - `close()` stops reading and fires `onclose` once; stdin and stdout themselves stay open
 *   (they are the process's).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { MAX_AGENT_STDIO_MESSAGE_BYTES, MAX_MESSAGE_BYTES } from '../../api/limits.js';
import { oversizeOf } from '../agent-message-size.js';
import { checkAgentLine } from '../../gateway/agent-message.js';
import { JSONRPC, LineReader, LineTooLongError, RpcCodes } from '../rpc/protocol.js';

export class StdioLineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #reader: LineReader;
  #started = false;
  #closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    maxLineBytes = MAX_MESSAGE_BYTES,
    private readonly maxSendBytes = MAX_AGENT_STDIO_MESSAGE_BYTES,
  ) {
    this.#reader = new LineReader(maxLineBytes);
  }

  start(): Promise<void> {
    if (this.#started) throw new Error('StdioLineTransport already started');
    this.#started = true;
    this.stdin.on('data', this.#onData);
    this.stdin.on('error', this.#onError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const text = JSON.stringify(message);
    const over = oversizeOf(message, text, this.maxSendBytes);
    if (over && 'answer' in over) return this.#reply(over.answer, over.code, over.message);
    if (over) return Promise.reject(new Error(`${over.dropped}: not sent to the agent`));
    return this.#write(`${text}\n`);
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.stdin.off('data', this.#onData);
    this.stdin.off('error', this.#onError);
    this.stdin.pause();
    this.#reader.clear();
    this.onclose?.();
    return Promise.resolve();
  }

  readonly #onError = (err: Error) => this.onerror?.(err);

  readonly #onData = (chunk: Buffer | string) => {
    let lines: string[];
    try {
      lines = this.#reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    } catch (err) {
      if (!(err instanceof LineTooLongError)) throw err;
      void this.#reply(null, RpcCodes.InvalidRequest, `invalid request: ${err.message}`).then(() =>
        this.close(),
      );
      return;
    }
    for (const line of lines) {
      if (this.#closed) return;
      // MCP's stdio framing allows a CR before the newline.
      const checked = checkAgentLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      if (checked.kind === 'refused') void this.#reply(checked.id, checked.code, checked.message);
      else if (checked.kind === 'message') this.onmessage?.(checked.message);
    }
  };

  #reply(id: RequestId | null, code: number, message: string): Promise<void> {
    return this.#write(`${JSON.stringify({ jsonrpc: JSONRPC, id, error: { code, message } })}\n`);
  }

  #write(text: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(text)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }
}
