import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { methodOf, passesChecks } from './checks.js';

/** A response that keeps its status, headers and body. */
class Reply {
  status = 0;
  headers: Record<string, string> = {};
  body = '';
  writeHead(status: number, headers: Record<string, string>): this {
    this.status = status;
    this.headers = headers;
    return this;
  }
  end(body: string): this {
    this.body = body;
    return this;
  }
}

const TOKEN = 'secret-token';
const good = {
  host: '127.0.0.1:7777',
  authorization: `Bearer ${TOKEN}`,
};

function check(
  headers: Record<string, string>,
  { url = '/mcp', method = 'POST', allowRemote = false } = {},
): { url: URL | undefined; reply: Reply } {
  const reply = new Reply();
  const req = { headers, url, method } as unknown as IncomingMessage;
  const checked = passesChecks(req, reply as unknown as ServerResponse, {
    allowRemote,
    tokenMatches: (given) => given === TOKEN,
  });
  return { url: checked, reply };
}

describe('the HTTP endpoint checks 1 to 4', () => {
  it('a request that passes gets its URL and nothing written', () => {
    const { url, reply } = check(good, { url: '/mcp?workspace=/w' });
    assert.equal(url?.searchParams.get('workspace'), '/w');
    assert.equal(reply.status, 0);
    assert.equal(methodOf({ method: 'POST' } as IncomingMessage), 'POST');
  });

  it('refuses in order: foreign host or origin 403, path 404, token 401, method 405', () => {
    const refused = (headers: Record<string, string>, o?: Parameters<typeof check>[1]) =>
      check(headers, o).reply.status;
    assert.equal(refused({ ...good, host: 'evil.example' }, { url: '/nope', method: 'PUT' }), 403);
    assert.equal(refused({ ...good, origin: 'https://evil.example' }), 403);
    assert.equal(refused({ ...good, host: 'evil.example' }, { allowRemote: true }), 0);
    assert.equal(refused({ ...good, authorization: 'Bearer wrong' }, { url: '/nope' }), 404);
    assert.equal(refused({ ...good, authorization: 'Bearer wrong' }, { method: 'PUT' }), 401);
    assert.equal(refused({ host: good.host }), 401);
    assert.equal(refused(good, { method: 'PUT' }), 405);
  });

  it('says what is wrong, never the token it was sent', () => {
    const { reply } = check({ ...good, authorization: 'Bearer not-the-token' });
    assert.equal(reply.headers['WWW-Authenticate'], 'Bearer realm="mcpctl"');
    assert.match(reply.body, /wrong bearer token/);
    assert.doesNotMatch(reply.body, /not-the-token/);
    assert.equal(check(good, { method: 'PUT' }).reply.headers.Allow, 'GET, POST, DELETE');
  });
});
