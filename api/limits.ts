/**
 * mcpctl's limits: the servers a file of a gated scope may hold (MAX_GATED_SERVERS_PER_FILE,
 * at the end), and the one size limit of an MCP message (one JSON-RPC line) that mcpctl passes along, whichever
 * way: server → daemon (a stdio server's stdout line), agent → daemon (a line on the daemon's
 * socket, cli/rpc/limits.ts) and daemon → agent (the gateway's messages; to an agent's stdio
 * the lower MAX_AGENT_STDIO_MESSAGE_BYTES, below).
 *
 * Why 16 MiB: far more than a model can take in one message (its context is a few MB of text),
 * yet room for what servers really send: a 12 MB image in base64, or an 8 MB text sent twice
 * (server-filesystem's `read_text_file` puts it in `content` and in `structuredContent`); a few
 * such messages at once stay within the daemon's memory budget (64 MiB of unfinished socket
 * messages). It was already the socket's line limit. Past it, the request the message answers
 * fails with a size error naming this limit; the connection and the server process stay.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * The largest MCP message mcpctl writes to an agent's stdio (`mcpctl serve`: the gateway's
 * answers through the daemon's socket, serve's own lines, `--no-daemon`).
 *
 * Why 9 MiB: agents built on the TypeScript MCP SDK (Qwen Code, Claude Code, Gemini CLI) read
 * their server's stdout with its ReadBuffer, which refuses to hold more than 10 MiB
 * (`STDIO_DEFAULT_MAX_BUFFER_SIZE`) unread: the start of the message being read plus the chunk
 * just read, which may carry the start of the next one (a pipe gives up to 64 KiB at a time).
 * Past that it drops the connection, so one large answer would end the agent's whole session,
 * every server behind mcpctl. 1 MiB under it leaves room for any such chunk. (The Python SDK
 * reads lines of any length.) Past this, as past MAX_MESSAGE_BYTES, only the request the
 * message answers fails (LIMIT_EXCEEDED_CODE); a notification or a request is not sent.
 *
 * Not over HTTP: the SDK's HTTP client reads a body or an SSE event of any size, and a failed
 * one fails that request only, so a Streamable HTTP agent keeps MAX_MESSAGE_BYTES.
 */
export const MAX_AGENT_STDIO_MESSAGE_BYTES = 9 * 1024 * 1024;

/** A size for messages about limits: `16 MiB`, `23.4 MiB`, `1000 B`, `1.5 KiB`. */
export function sizeText(bytes: number): string {
  const [value, unit] =
    bytes >= 1024 * 1024
      ? [bytes / (1024 * 1024), 'MiB']
      : bytes >= 1024
        ? [bytes / 1024, 'KiB']
        : [bytes, 'B'];
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
}

/**
 * The JSON-RPC error code of a request that failed on one of mcpctl's limits: a message over
 * MAX_MESSAGE_BYTES here, and every limit of the daemon's socket (cli/rpc/PROTOCOL.md, "Limits").
 */
export const LIMIT_EXCEEDED_CODE = -32005;

/**
 * The servers a file of a gated scope (`<ws>/.mcp.json`, `<ws>/.qwen/settings.json`,
 * `<ws>/.gemini/settings.json`, `<ws>/.lsp.json`: a repository's) may hold: past it the informers
 * refuse the file unvalidated (informers/source-kinds.ts) and `mcpctl setup` leaves it alone.
 * Generous for a real project (each of its servers needs the user's approval anyway).
 */
export const MAX_GATED_SERVERS_PER_FILE = 1000;
