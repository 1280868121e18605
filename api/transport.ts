/**
 * Claude-shape normalisation and transport selection.
 *
 * `.mcp.json` written for Claude uses `type: stdio|sse|http` with `url`; Qwen/Gemini use
 * `command`, `url` (SSE) and `httpUrl` (streamable HTTP). Everything downstream sees only ours,
 * so the same server written either way has the same connectionId and approval hash.
 */
import type { McpServerConfig } from './server-config.js';

export type Transport = 'stdio' | 'http' | 'sse';

export function normalizeServerConfig(config: McpServerConfig): McpServerConfig {
  if (config.type === undefined) return config;
  const { type, ...rest } = config;
  if (type === 'http' && rest.url !== undefined && rest.httpUrl === undefined) {
    const { url, ...withoutUrl } = rest;
    return { ...withoutUrl, httpUrl: url };
  }
  return rest;
}

export class TransportError extends Error {
  constructor(name: string) {
    super(
      `server ${name}: has neither "command" nor "httpUrl"/"url"; add a command to start it locally or a URL to reach it`,
    );
    this.name = 'TransportError';
  }
}

/** The transport a (normalised or not) config asks for. Throws TransportError when it names none. */
export function transportOf(config: McpServerConfig, name = '<unnamed>'): Transport {
  if (config.httpUrl !== undefined) return 'http';
  if (config.url !== undefined) return config.type === 'http' ? 'http' : 'sse';
  if (config.command !== undefined) return 'stdio';
  throw new TransportError(name);
}

/** The URL of a remote server, whichever field holds it. */
export function urlOf(config: McpServerConfig): string | undefined {
  return config.httpUrl ?? config.url;
}
