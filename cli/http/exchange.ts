/**
 * One HTTP exchange of an MCP session that passed every check of the endpoint (endpoint.ts):
 * the request served, on the fast path or through the session's SDK transport, and its answer
 * written back with what the client leaves unread counted.
 *
 * Guarantees:
 * - A plain request (one JSON-RPC request, no progress token, no task) on a session whose
 *   workspace is chosen (`servesFast`) is served on the fast path: straight to the session's
 *   gateway and answered as one `application/json` response (fast-path.ts); every other one
 *   goes through the SDK transport, which answers on an event stream.
 * - What is sent on the GET stream while none is open (a server's request right after
 *   initialize, say) is kept and sent on the next GET stream the client opens, by resuming
 *   after the session's mark; a GET stream opens with that mark as its first id (for clients
 *   of protocol 2025-11-25 and later), so it is resumable from its first event.
 * - The session counts the exchange (`open`, and `streams` for a GET) while it lasts, and is
 *   active (`lastActive`) at its start and its end, whatever happens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STANDALONE_STREAM, type HttpAgentSession } from './agent-session.js';
import type { HttpMethod } from './checks.js';
import { FastResponse, fastExtraOf, fastRequestOf } from './fast-path.js';
import { sendResponse, webRequestOf } from './node-bridge.js';
import type { UnreadLedger } from './unread.js';

/** The first protocol version whose clients take an event without data (a priming event). */
const PRIMING_SINCE = '2025-11-25';

export async function exchange(
  agent: HttpAgentSession,
  unread: UnreadLedger,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  method: HttpMethod,
  parsedBody: unknown,
): Promise<void> {
  agent.open += 1;
  if (method === 'GET') agent.streams += 1;
  agent.lastActive = Date.now();
  try {
    // A plain request on a served session: no web objects, a JSON answer (fast-path.ts).
    const wrote = () => unread.wrote(res, agent.id);
    const fast = method === 'POST' && agent.servesFast ? fastRequestOf(req, parsedBody) : undefined;
    if (fast) {
      const reply = new FastResponse(res, agent.id, { wrote });
      agent.serveFast(fast, fastExtraOf(req, url), reply);
      return await reply.done;
    }
    const request = webRequestOf(req, url);
    const given = req.headers['last-event-id'];
    // The GET stream: what was sent on it while none was open (a server's request right
    // after initialize, say) is sent when one opens, by resuming after the session's mark.
    const standalone =
      method === 'GET' &&
      (typeof given !== 'string' ||
        (await agent.store.getStreamIdForEventId(given)) === STANDALONE_STREAM);
    let prefix: string | undefined;
    if (method === 'GET' && typeof given !== 'string') {
      request.headers.set('last-event-id', agent.standaloneMark);
      // The client gets the mark as its first id: coming back with it gets the same replay.
      if ((req.headers['mcp-protocol-version'] ?? '') >= PRIMING_SINCE)
        prefix = `id: ${agent.standaloneMark}\ndata: \n\n`;
    }
    const response = await agent.transport.handleRequest(request, {
      ...(parsedBody === undefined ? {} : { parsedBody }),
    });
    const streaming =
      response.status === 200 && response.headers.get('content-type') === 'text/event-stream';
    await sendResponse(res, response, {
      wrote,
      ...(prefix !== undefined && streaming ? { prefix } : {}),
      // Everything sent on the GET stream up to here went to this stream.
      ...(standalone && streaming
        ? { onEnd: () => (agent.standaloneMark = agent.store.mark(STANDALONE_STREAM)) }
        : {}),
    });
  } finally {
    agent.open -= 1;
    if (method === 'GET') agent.streams -= 1;
    agent.lastActive = Date.now();
  }
}
