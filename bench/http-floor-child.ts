/**
 * The servers of the http figure's floor rows (http-floor.ts), each a process of its own as the
 * daemon is: `node http-floor-child.js MODE DIR`, which prints one JSON line (`{"port":N}` or
 * `{"path":P}`) once it listens and runs until killed. DIR (the figure's temporary folder) is
 * in its command line so leftovers are found; the Unix socket is made in it.
 *
 * - `http`: node:http answering every request with one fixed JSON body (Content-Length, one
 *   `end`): what any HTTP server on this machine cannot beat.
 * - `unix`: a Unix socket echoing what it reads: the hop `serve` makes to the daemon.
 * - `mcp`: the least a Streamable HTTP MCP server can be: JSON answers to `initialize`,
 *   `tools/list` and `tools/call` of one `echo` tool (answering as the fixture's echo does), 202
 *   to notifications, 405 to GET. The SDK client over HTTP against it is what the client side
 *   of a call costs, with no mcpctl at all.
 * - `gateway` (arguments: the stdio server's script and its arguments): the least an HTTP gateway in front of a
 *   stdio MCP server can be: each POSTed message written as a line to the server's stdin, each
 *   answer line written back as the JSON response to the request of its id, 202 to
 *   notifications, 405 to GET — no checks, no sessions, no gateway. The SDK client against it
 *   is what HTTP in front of the same server costs on this machine with nothing of mcpctl's.
 */
import { spawn } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';

const [mode, dir, ...stdioServer] = process.argv.slice(2);
if (!dir)
  throw new Error('usage: http-floor-child.js http|unix|mcp DIR | gateway DIR SERVER.js [ARGS]');

const announce = (what: object) => process.stdout.write(`${JSON.stringify(what)}\n`);

const FIXED = Buffer.from(
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: {
      content: [
        { type: 'text', text: JSON.stringify({ tool: 'echo', args: { n: 1 }, pid: process.pid }) },
      ],
    },
  }),
);

interface Rpc {
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: { protocolVersion?: string; arguments?: unknown };
}

/** The mcp mode's answer to one message (undefined: a notification, 202). */
function mcpResult(m: Rpc): unknown {
  switch (m.method) {
    case 'initialize':
      return {
        protocolVersion: m.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'http-floor', version: '0.0.0' },
      };
    case 'tools/list':
      return { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    case 'tools/call':
      return {
        content: [
          {
            type: 'text',
            text: JSON.stringify({ tool: 'echo', args: m.params?.arguments, pid: process.pid }),
          },
        ],
      };
    default:
      return {};
  }
}

if (mode === 'unix') {
  const path = join(dir, 'floor.sock');
  const server = createNetServer((socket) => socket.on('data', (chunk) => socket.write(chunk)));
  server.listen(path, () => announce({ path }));
} else if (mode === 'http' || mode === 'mcp') {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (mode === 'http') {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': FIXED.length });
        return void res.end(FIXED);
      }
      if (req.method !== 'POST') {
        res.writeHead(req.method === 'DELETE' ? 200 : 405);
        return void res.end();
      }
      const m = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Rpc;
      if (m.id === undefined) {
        res.writeHead(202);
        return void res.end();
      }
      const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: mcpResult(m) }));
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        'mcp-session-id': 'floor',
      });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    announce({ port: typeof address === 'object' && address ? address.port : 0 });
  });
} else if (mode === 'gateway') {
  if (stdioServer.length === 0) throw new Error('gateway needs the stdio server script');
  const server = spawn(process.execPath, stdioServer, { stdio: ['pipe', 'pipe', 'inherit'] });
  server.once('exit', () => process.exit(1));
  const waiting = new Map<string | number, ServerResponse>();
  let buffered = '';
  server.stdout.setEncoding('utf8');
  server.stdout.on('data', (text: string) => {
    buffered += text;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const id = (JSON.parse(line) as Rpc).id;
      const res = id === undefined ? undefined : waiting.get(id);
      if (!res || id === undefined) continue;
      waiting.delete(id);
      const body = Buffer.from(line);
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Length': body.length,
        'mcp-session-id': 'floor',
      });
      res.end(body);
    }
  });
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(req.method === 'DELETE' ? 200 : 405);
        return void res.end();
      }
      const text = Buffer.concat(chunks).toString('utf8');
      const { id } = JSON.parse(text) as Rpc;
      if (id === undefined) {
        res.writeHead(202);
        res.end();
      } else waiting.set(id, res);
      server.stdin.write(`${text}\n`);
    });
  });
  http.listen(0, '127.0.0.1', () => {
    const address = http.address();
    announce({ port: typeof address === 'object' && address ? address.port : 0 });
  });
} else throw new Error(`unknown mode ${mode}`);
