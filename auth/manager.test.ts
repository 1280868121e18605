import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthTarget } from '../api/index.js';
import type { OAuthGrant, OAuthGrantStore } from './grant.js';
import { createOAuthManager } from './manager.js';
import { REFRESH_RETRY_INITIAL_MS, REFRESH_RETRY_MAX_MS } from './refresh-backoff.js';

const ISSUER = 'https://auth.example';

function targetOf(serverUrl: string): OAuthTarget {
  return {
    serverUrl,
    settings: {
      clientId: 'cid',
      authorizationUrl: `${ISSUER}/authorize`,
      tokenUrl: `${ISSUER}/token`,
    },
    endpointAuthority: 'config',
  };
}

function memoryStore(grants: Map<string, OAuthGrant>): OAuthGrantStore {
  return {
    get: (url) => Promise.resolve(grants.get(url)),
    put: (url, grant) => {
      grants.set(url, grant);
      return Promise.resolve();
    },
    remove: (url) => Promise.resolve(grants.delete(url)),
  };
}

/** A grant whose access token expired long ago (obtained at 0, now is far later). */
const expired = (tag: string): OAuthGrant => ({
  clientId: 'cid',
  tokens: {
    access_token: `access-${tag}`,
    token_type: 'bearer',
    expires_in: 60,
    refresh_token: `refresh-${tag}`,
    issuer: ISSUER,
  },
  obtainedAt: 0,
});

type AuthServer = 'down' | 'up' | 'refuses';

/** The authorization server as seen through fetch: token requests counted per refresh token. */
function fakeFetch(state: { server: AuthServer; tokenRequests: string[] }): FetchLike {
  let issued = 0;
  return (url, init) => {
    const href = String(url);
    // The MCP server refuses the (expired) access token.
    if (href.endsWith('/mcp')) return Promise.resolve(new Response('', { status: 401 }));
    if (href !== `${ISSUER}/token`) return Promise.resolve(new Response('', { status: 404 }));
    const form = init?.body instanceof URLSearchParams ? init.body : new URLSearchParams();
    state.tokenRequests.push(form.get('refresh_token') ?? '');
    if (state.server === 'down') return Promise.reject(new TypeError('fetch failed'));
    if (state.server === 'refuses')
      return Promise.resolve(Response.json({ error: 'invalid_grant' }, { status: 400 }));
    issued += 1;
    return Promise.resolve(
      Response.json({
        access_token: `fresh-${issued}`,
        token_type: 'bearer',
        expires_in: 3600,
        refresh_token: `refresh-fresh-${issued}`,
      }),
    );
  };
}

function setup(): {
  clock: { now: number };
  state: { server: AuthServer; tokenRequests: string[] };
  manager: ReturnType<typeof createOAuthManager>;
} {
  const clock = { now: 10_000_000 };
  const state = { server: 'down' as AuthServer, tokenRequests: [] as string[] };
  const grants = new Map<string, OAuthGrant>([
    ['https://a.example/mcp', expired('a')],
    ['https://b.example/mcp', expired('b')],
  ]);
  const manager = createOAuthManager({
    store: memoryStore(grants),
    now: () => clock.now,
    fetch: fakeFetch(state),
  });
  return { clock, state, manager };
}

describe('OAuth refresh against an unreachable authorization server', () => {
  it('backs off exponentially (1 s doubling to 5 min), keeps the tokens, resets on success; other grants are not delayed', async () => {
    const { clock, state, manager } = setup();
    let loginsAsked = 0;
    const a = manager.authFor(targetOf('https://a.example/mcp'), () => (loginsAsked += 1));
    const b = manager.authFor(targetOf('https://b.example/mcp'), () => (loginsAsked += 1));
    const attempts = (): number => state.tokenRequests.filter((t) => t.endsWith('-a')).length;

    // First failure: tokens kept, no login asked, and nothing sent again until 1 s has passed.
    assert.equal((await a.provider.tokens())?.access_token, 'access-a');
    assert.equal(attempts(), 1);
    await a.provider.tokens();
    await a.provider.tokens();
    assert.equal(attempts(), 1, 'no retry before the backoff');

    // Another grant on the same daemon refreshes at once: the backoff is per grant.
    await b.provider.tokens();
    assert.equal(state.tokenRequests.filter((t) => t.endsWith('-b')).length, 1);

    let expected = REFRESH_RETRY_INITIAL_MS;
    for (let failures = 1; failures <= 12; failures++) {
      clock.now += expected - 1;
      await a.provider.tokens();
      assert.equal(attempts(), failures, `still waiting ${expected} ms after failure ${failures}`);
      clock.now += 1;
      await a.provider.tokens();
      assert.equal(attempts(), failures + 1, `retried after ${expected} ms`);
      expected = Math.min(expected * 2, REFRESH_RETRY_MAX_MS);
    }
    assert.equal(expected, REFRESH_RETRY_MAX_MS, 'the delay reached its bound and stays there');
    assert.equal(loginsAsked, 0, 'an unreachable server never asks for a login');
    assert.equal((await a.provider.tokens())?.access_token, 'access-a');

    // The server is back: the next allowed try succeeds, and the backoff starts over.
    state.server = 'up';
    clock.now += REFRESH_RETRY_MAX_MS;
    assert.match((await a.provider.tokens())?.access_token ?? '', /^fresh-/);
    const afterSuccess = attempts();
    state.server = 'down';
    clock.now += 3600_000; // the fresh token expires too
    await a.provider.tokens();
    const refreshed = state.tokenRequests.length;
    clock.now += REFRESH_RETRY_INITIAL_MS;
    await a.provider.tokens();
    assert.equal(state.tokenRequests.length, refreshed + 1, 'reset: 1 s after the next failure');
    assert.ok(afterSuccess > 0);
    a.detach();
    b.detach();
  });

  it('a 401 during the backoff is answered without a token request', async () => {
    const { state, manager } = setup();
    const a = manager.authFor(targetOf('https://a.example/mcp'), () => undefined);
    await a.provider.tokens(); // fails, starts the backoff
    const sent = state.tokenRequests.length;
    const response = await a.fetch('https://a.example/mcp', {
      method: 'POST',
      headers: { Authorization: 'Bearer access-a' },
    });
    assert.equal(response.status, 401, 'the answer is passed through');
    assert.equal(state.tokenRequests.length, sent);
    a.detach();
  });

  it('a refused refresh (invalid_grant) still asks for a login at once', async () => {
    const { state, manager } = setup();
    state.server = 'refuses';
    let loginsAsked = 0;
    const a = manager.authFor(targetOf('https://a.example/mcp'), () => (loginsAsked += 1));
    assert.equal(await a.provider.tokens(), undefined, 'the dead tokens are dropped');
    assert.ok(loginsAsked >= 1, 'the server is told a login is required');
    a.detach();
  });
});

describe('OAuth endpoints a repository config names', () => {
  const SERVER = 'https://mcp.example/mcp';
  const AUTH = 'https://auth.example';

  /** The server and its authorization server as seen through fetch; every URL is recorded. */
  function publishedFetch(seen: string[], token: () => Response): FetchLike {
    return (url) => {
      const href = String(url);
      seen.push(href);
      if (href.startsWith('https://mcp.example/.well-known/oauth-protected-resource'))
        return Promise.resolve(Response.json({ resource: SERVER, authorization_servers: [AUTH] }));
      if (href === `${AUTH}/.well-known/oauth-authorization-server`)
        return Promise.resolve(
          Response.json({
            issuer: AUTH,
            authorization_endpoint: `${AUTH}/authorize`,
            token_endpoint: `${AUTH}/token`,
            response_types_supported: ['code'],
            code_challenge_methods_supported: ['S256'],
            token_endpoint_auth_methods_supported: ['client_secret_post'],
          }),
        );
      if (href.startsWith(`${AUTH}/oauth/token`)) return Promise.resolve(token());
      return Promise.resolve(new Response('', { status: 404 }));
    };
  }

  function target(tokenUrl: string, authority: 'config' | 'metadata'): OAuthTarget {
    return {
      serverUrl: SERVER,
      settings: {
        clientId: 'cid',
        clientSecret: 'client-SECRET-1',
        authorizationUrl: `${AUTH}/authorize`,
        tokenUrl,
      },
      endpointAuthority: authority,
    };
  }

  const store = (grants = new Map<string, OAuthGrant>()) => memoryStore(grants);

  it('a token endpoint on a host the metadata does not name is refused before anything reaches it', async () => {
    const seen: string[] = [];
    const warnings: string[] = [];
    const grants = new Map<string, OAuthGrant>([[SERVER, expired('r')]]);
    const manager = createOAuthManager({
      store: store(grants),
      now: () => 10_000_000,
      fetch: publishedFetch(seen, () => Response.json({})),
      onWarning: (m) => warnings.push(m),
    });
    const evil = target('https://evil.example/token', 'metadata');
    await assert.rejects(
      manager.beginLogin(evil, 'http://127.0.0.1:5555/cb'),
      /oauth\.tokenUrl of https:\/\/mcp\.example\/mcp points to evil\.example, but the authorization server's published metadata names auth\.example/,
    );
    // A connection whose grant needs a refresh does not send its refresh token there either.
    const a = manager.authFor(evil, () => undefined);
    await a.provider.tokens();
    a.detach();
    assert.equal(warnings.length, 1, 'the refresh failed and backs off');
    assert.deepEqual(
      seen.filter((u) => u.includes('evil.example')),
      [],
      'nothing was sent to the other host',
    );
  });

  it("the user's own config is used as written", async () => {
    const seen: string[] = [];
    const manager = createOAuthManager({
      store: store(),
      fetch: publishedFetch(seen, () => Response.json({})),
    });
    const start = await manager.beginLogin(
      target('https://evil.example/token', 'config'),
      'http://127.0.0.1:5555/cb',
    );
    assert.match(start.authorizationUrl, /^https:\/\/auth\.example\/authorize\?/);
  });

  it('an endpoint on the published host is used as configured; a refused code exchange says what failed', async () => {
    const seen: string[] = [];
    const manager = createOAuthManager({
      store: store(),
      fetch: publishedFetch(seen, () => Response.json({ error: 'invalid_grant' }, { status: 400 })),
    });
    const start = await manager.beginLogin(
      target(`${AUTH}/oauth/token`, 'metadata'),
      'http://127.0.0.1:5555/cb',
    );
    await assert.rejects(manager.finishLogin(start.state, 'the-CODE-123'), (err: Error) => {
      assert.equal(
        err.message,
        'exchanging the sign-in code at https://auth.example/oauth/token failed: invalid_grant (no description given)',
      );
      return true;
    });
    assert.ok(seen.includes(`${AUTH}/oauth/token`), 'the configured path was used');
  });
});
