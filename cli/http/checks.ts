/**
 * The first checks of every request to the daemon's HTTP endpoint (endpoint.ts, its steps 1 to
 * 4): who may ask at all, before any session is looked up or any body read.
 *
 * Guarantees:
 * - In this order: `Host` names a loopback host (unless `allowRemote`), and `Origin`, when
 *   present, is a loopback origin → else 403; the path is `/mcp` → else 404 (a URL that does not
 *   parse: 400); `Authorization: Bearer <token>` matches (constant time, token.ts) → else 401
 *   with `WWW-Authenticate`; GET, POST or DELETE → else 405 with `Allow`.
 * - A request that fails gets its status and nothing else; the refusal says what is wrong,
 *   never what was sent (the token is never logged or echoed).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostOfHeader, isLoopbackHost, isLoopbackOrigin } from './address.js';
import { replyError } from './node-bridge.js';
import { bearerOf } from './token.js';

/** Where the endpoint serves MCP. */
export const PATH = '/mcp';

/** JSON-RPC codes of the endpoint's own refusals (the SDK transport uses the same ones). */
export const SERVER_ERROR = -32000;
export const SESSION_NOT_FOUND = -32001;
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface CheckOptions {
  /** `--http-allow-remote`: any `Host` header is taken (the token still is required). */
  readonly allowRemote: boolean;
  readonly tokenMatches: (given: string) => boolean;
}

/**
 * The request's URL once it passed checks 1 to 4 (its method then is an HttpMethod: see
 * `methodOf`), or undefined when it did not and `res` has its refusal. Only the URL is
 * returned, so a request costs no object more than before the checks had a module.
 */
export function passesChecks(
  req: IncomingMessage,
  res: ServerResponse,
  o: CheckOptions,
): URL | undefined {
  // 1. Host and Origin: a web page (DNS rebinding or not) gets nothing.
  const refusal = foreignRefusal(req, o.allowRemote);
  if (refusal !== undefined) return void replyError(res, 403, SERVER_ERROR, refusal);
  // 2. The path.
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    return void replyError(res, 400, SERVER_ERROR, 'bad request URL');
  }
  if (url.pathname !== PATH)
    return void replyError(res, 404, SERVER_ERROR, `not found: mcpctl serves MCP at ${PATH}`);
  // 3. The token.
  const given = bearerOf(req.headers.authorization);
  if (given === undefined || !o.tokenMatches(given))
    return void replyError(
      res,
      401,
      SERVER_ERROR,
      `${given === undefined ? 'no bearer token' : 'wrong bearer token'}: send 'Authorization: Bearer <token>' with the token 'mcpctl token' prints`,
      { 'WWW-Authenticate': 'Bearer realm="mcpctl"' },
    );
  // 4. The method.
  const method = req.method ?? '';
  if (method !== 'GET' && method !== 'POST' && method !== 'DELETE')
    return void replyError(res, 405, SERVER_ERROR, `method ${method} not allowed`, {
      Allow: 'GET, POST, DELETE',
    });
  return url;
}

/** The method of a request that passed the checks (they refused every other one). */
export function methodOf(req: IncomingMessage): HttpMethod {
  return req.method as HttpMethod;
}

/** Why `req` must be refused for its Host or Origin, or undefined. */
function foreignRefusal(req: IncomingMessage, allowRemote: boolean): string | undefined {
  if (!allowRemote) {
    const header = req.headers.host;
    const host = header === undefined ? undefined : hostOfHeader(header);
    if (host === undefined || !isLoopbackHost(host))
      return 'Forbidden: the Host header must name this machine (localhost, 127.0.0.1 or [::1])';
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin))
    return 'Forbidden: requests from web pages of other origins are refused';
  return undefined;
}
