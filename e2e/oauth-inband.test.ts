/**
 * e2e: the OAuth login offered through the agent (issue 16 "Through the agent"). An agent on the
 * built `mcpctl serve` that declares URL-mode elicitation is asked to open the authorization URL
 * of a server waiting for a login; the test plays the user's browser (fetches the URL, follows
 * the redirect to the daemon's loopback listener). The OAuth-protected MCP server is
 * e2e/fixtures/oauth-server.ts.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { TestEnv, condition, isReady, untilTools } from './harness.js';
import { until } from '../testing/until.js';
import { login, Outputs, untilUnauthorized } from './fixtures/oauth-helpers.js';
import { startOAuthFixture, type OAuthFixture } from './fixtures/oauth-server.js';
import { textOf } from '../testing/tool-results.js';

const T = { timeout: 120_000 };

type Answer = ElicitResult['action'];

interface BrowserVisit {
  /** Status of the loopback listener's answer to the redirect. */
  readonly status: number;
  /** The redirect the browser was sent to (with the state it carried). */
  readonly location: URL;
  /** The answer to a stray redirect (a forged state) sent before the real one, if any. */
  readonly stray?: { readonly status: number; readonly text: string };
}

/**
 * The user's browser: opens the authorization URL and follows the redirect back; with
 * `strayFirst`, something else visits the listener first with a forged state.
 */
async function openInBrowser(url: string, strayFirst = false): Promise<BrowserVisit> {
  const authorize = await fetch(url, { redirect: 'manual' });
  await authorize.text();
  assert.equal(authorize.status, 302, 'the authorization server redirects back');
  const location = new URL(authorize.headers.get('location') ?? '');
  assert.equal(location.hostname, '127.0.0.1', 'the redirect goes to the loopback listener');
  let stray: BrowserVisit['stray'];
  if (strayFirst) {
    const forged = new URL(location);
    forged.searchParams.set('state', 'a-state-the-daemon-never-made');
    const r = await fetch(forged);
    stray = { status: r.status, text: await r.text() };
  }
  const back = await fetch(location);
  await back.text();
  return { status: back.status, location, ...(stray ? { stray } : {}) };
}

/** The loopback listener a login URL sends the browser back to. */
function redirectUriOf(url: string): URL {
  return new URL(new URL(url).searchParams.get('redirect_uri') ?? '');
}

/** Whether something answers HTTP at `url`'s origin (a path the listener does not serve). */
async function listening(url: URL): Promise<boolean> {
  try {
    const r = await fetch(new URL('/favicon.ico', url));
    await r.text();
    return true;
  } catch {
    return false;
  }
}

/** An agent on `mcpctl serve` that records its elicitations and answers them with `answer`. */
class UrlAgent {
  readonly client: Client;
  readonly elicitations: ElicitRequest['params'][] = [];
  readonly completed: string[] = [];
  readonly visits: Promise<BrowserVisit>[] = [];
  toolListChanged = 0;
  #stderr: () => string = () => '';

  constructor(
    capabilities: ClientCapabilities,
    readonly answer: (params: ElicitRequest['params']) => {
      action: Answer;
      open?: 'yes' | 'stray-first';
    },
  ) {
    this.client = new Client({ name: 'e2e-inband', version: '1.0.0' }, { capabilities });
    if (capabilities.elicitation)
      this.client.setRequestHandler(ElicitRequestSchema, (request) => {
        this.elicitations.push(request.params);
        const { action, open } = this.answer(request.params);
        // Like a client: answer that the user agreed, then the browser opens the page.
        if (open && request.params.mode === 'url') {
          const url = request.params.url;
          this.visits.push(
            new Promise<void>((r) => setImmediate(r)).then(() =>
              openInBrowser(url, open === 'stray-first'),
            ),
          );
        }
        return { action };
      });
    this.client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
      this.completed.push(n.params.elicitationId);
    });
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.toolListChanged += 1;
    });
  }

  async connect(env: TestEnv, args: readonly string[] = []): Promise<void> {
    const { transport, stderr } = env.serveTransport({ args });
    this.#stderr = stderr;
    await this.client.connect(transport);
    env.trackPid(transport.pid ?? undefined);
  }

  stderr(): string {
    return this.#stderr();
  }

  async tools(): Promise<string[]> {
    return (await this.client.listTools()).tools.map((t) => t.name);
  }

  async call(name: string): Promise<CallToolResult> {
    return (await this.client.callTool({ name, arguments: {} })) as CallToolResult;
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}

const URL_MODE: ClientCapabilities = { elicitation: { url: {} } };

describe('OAuth login through the agent (e2e)', () => {
  let env: TestEnv;
  let fixture: OAuthFixture | undefined;
  const agents: UrlAgent[] = [];
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    for (const a of agents.splice(0)) await a.close();
    await env.cleanup();
    await fixture?.close();
    fixture = undefined;
  });

  async function unauthorizedRemote(opts: { clientSecret?: string } = {}): Promise<OAuthFixture> {
    const fx = (fixture = await startOAuthFixture(
      opts.clientSecret
        ? { preRegistered: { clientId: 'mcpctl-pre', clientSecret: opts.clientSecret } }
        : {},
    ));
    env.write(env.userSettingsPath, {
      mcpServers: {
        remote: {
          httpUrl: fx.url,
          ...(opts.clientSecret
            ? { oauth: { clientId: 'mcpctl-pre', clientSecret: opts.clientSecret } }
            : {}),
        },
      },
    });
    return fx;
  }

  it(
    'an agent with URL mode is offered the login of a server already waiting; signing in makes it Ready, its tools are listed after list_changed, a call works, and the elicitation completes',
    T,
    async () => {
      const clientSecret = 'pre-registered-S3cret-value';
      const fx = await unauthorizedRemote({ clientSecret });
      const out = new Outputs();
      const daemon = await env.startDaemon();
      await untilUnauthorized(env, 'remote');
      const agent = new UrlAgent(URL_MODE, () => ({ action: 'accept', open: 'yes' }));
      agents.push(agent);
      await agent.connect(env);
      assert.deepEqual(await agent.tools(), [], 'nothing to list before the login');

      await until('the login to be offered', () => agent.visits.length === 1);
      const asked = agent.elicitations[0];
      assert.equal(asked.mode, 'url');
      assert.ok(asked.mode === 'url');
      assert.match(asked.message, /"remote"/);
      assert.ok(asked.url.startsWith(new URL(fx.url).origin), 'the authorization server URL');
      assert.ok(asked.elicitationId);
      assert.ok(!asked.url.includes(clientSecret), 'the URL carries no client secret');
      const visit = await agent.visits[0];
      assert.equal(visit.status, 200, 'the daemon took the redirect');

      await until('notifications/elicitation/complete', () =>
        agent.completed.includes(asked.elicitationId),
      );
      await until('tools/list_changed', () => agent.toolListChanged > 0);
      assert.deepEqual(await agent.tools(), ['remote__whoami']);
      const who = await agent.call('remote__whoami');
      assert.notEqual(who.isError, true, textOf(who));
      assert.deepEqual(JSON.parse(textOf(who)), { clientId: 'mcpctl-pre' });
      assert.equal(fx.counts.codeExchanges, 1, 'one login');
      assert.ok(isReady((await env.servers()).get('remote')));
      assert.equal(agent.elicitations.length, 1, 'asked once');
      assert.equal(await listening(visit.location), false, 'the listener closed after its use');

      const events = await env.cli(['get', 'events']);
      out.add(events);
      assert.match(events.stdout, /LoggedIn/);
      out.add(JSON.stringify(agent.elicitations));
      out.add(agent.stderr());
      out.assertNoSecrets([...fx.issuedSecrets, clientSecret], daemon);
    },
  );

  it(
    'a server that starts waiting (logout) is offered again; a declined question changes nothing and closes the listener',
    T,
    async () => {
      const fx = await unauthorizedRemote();
      const out = new Outputs();
      const daemon = await env.startDaemon();
      await untilUnauthorized(env, 'remote');
      const { result } = await login(env, 'remote', out);
      assert.equal(result.code, 0, result.stdout);

      const agent = new UrlAgent(URL_MODE, () => ({ action: 'decline' }));
      agents.push(agent);
      await agent.connect(env);
      assert.deepEqual(await agent.tools(), ['remote__whoami']);
      assert.equal(agent.elicitations.length, 0, 'a Ready server is not offered');

      const logout = await env.cli(['logout', 'remote']);
      out.add(logout);
      assert.equal(logout.code, 0, logout.stderr);
      await until(
        'the login to be offered after the logout',
        () => agent.elicitations.length === 1,
      );
      const asked = agent.elicitations[0];
      assert.ok(asked.mode === 'url');
      const listener = redirectUriOf(asked.url);
      await until(
        'the listener to close after the decline',
        async () => !(await listening(listener)),
      );
      const servers = await env.servers();
      assert.equal(condition(servers.get('remote'), 'Ready')?.reason, 'Unauthorized');
      assert.equal(fx.counts.codeExchanges, 1, 'only the CLI login exchanged a code');
      const call = await agent.call('remote__whoami');
      assert.equal(call.isError, true);
      assert.match(textOf(call), /mcpctl login remote/);
      assert.equal(agent.elicitations.length, 1, 'a declined question is not asked again');
      out.add(agent.stderr());
      out.assertNoSecrets(fx.issuedSecrets, daemon);
    },
  );

  it(
    'an agent without URL mode is asked nothing; its call answers with the login hint',
    T,
    async () => {
      const fx = await unauthorizedRemote();
      const out = new Outputs();
      const daemon = await env.startDaemon();
      await untilUnauthorized(env, 'remote');
      const { result } = await login(env, 'remote', out);
      assert.equal(result.code, 0, result.stdout);
      // Form mode only (what most agents declare), and a witness that can open URLs.
      const formOnly = new UrlAgent({ elicitation: { form: {} } }, () => ({ action: 'cancel' }));
      const witness = new UrlAgent(URL_MODE, () => ({ action: 'cancel' }));
      agents.push(formOnly, witness);
      await formOnly.connect(env);
      await witness.connect(env);
      assert.deepEqual(await formOnly.tools(), ['remote__whoami']);

      const logout = await env.cli(['logout', 'remote']);
      assert.equal(logout.code, 0, logout.stderr);
      await until('the witness to be offered the login', () => witness.elicitations.length === 1);
      const call = await formOnly.call('remote__whoami');
      assert.equal(call.isError, true);
      assert.match(textOf(call), /waiting for an OAuth login.*run '?mcpctl login remote'?/);
      await formOnly.client.ping();
      assert.equal(formOnly.elicitations.length, 0, 'no elicitation without URL mode');
      assert.doesNotMatch(daemon.stderr(), /does not support/i, 'nothing was tried on it');
      assert.equal(fx.counts.codeExchanges, 1);
    },
  );

  it(
    'a stray redirect with a forged state is answered 400 and changes nothing; the real one still signs in',
    T,
    async () => {
      const fx = await unauthorizedRemote();
      await env.startDaemon();
      await untilUnauthorized(env, 'remote');
      const agent = new UrlAgent(URL_MODE, () => ({ action: 'accept', open: 'stray-first' }));
      agents.push(agent);
      await agent.connect(env);
      await until('the login to be offered', () => agent.visits.length === 1);
      const asked = agent.elicitations[0];
      assert.ok(asked.mode === 'url');
      const visit = await agent.visits[0];
      assert.equal(visit.stray?.status, 400, 'the forged state is refused');
      assert.match(visit.stray?.text ?? '', /not the redirect of the login in progress/);
      assert.equal(visit.status, 200, 'the real redirect was still awaited');
      await until('notifications/elicitation/complete', () =>
        agent.completed.includes(asked.elicitationId),
      );
      assert.equal(fx.counts.codeExchanges, 1, 'only the real code was exchanged');
      await until('remote Ready', async () => isReady((await env.servers()).get('remote')));
      // One use: the listener closes once it took the real redirect.
      await until('the listener to close', async () => !(await listening(visit.location)));
    },
  );

  it(
    'an agent that accepts without signing in decides nothing, and closing it mid-login closes the listener',
    T,
    async () => {
      const fx = await unauthorizedRemote();
      await env.startDaemon();
      await untilUnauthorized(env, 'remote');
      const agent = new UrlAgent(URL_MODE, () => ({ action: 'accept' }));
      agents.push(agent);
      await agent.connect(env);
      await until('the login to be offered', () => agent.elicitations.length === 1);
      const asked = agent.elicitations[0];
      assert.ok(asked.mode === 'url');
      const listener = redirectUriOf(asked.url);
      assert.equal(listener.hostname, '127.0.0.1');
      assert.ok(await listening(listener), 'the daemon waits for the redirect');
      const servers = await env.servers();
      assert.equal(condition(servers.get('remote'), 'Ready')?.reason, 'Unauthorized');
      assert.equal(fx.counts.codeExchanges, 0);

      await agent.close();
      await until('the listener to close with the agent', async () => !(await listening(listener)));
    },
  );

  it(
    'serve --no-daemon (no daemon for mcpctl login to reach) offers the login in-band too',
    T,
    async () => {
      const fx = await unauthorizedRemote();
      const agent = new UrlAgent(URL_MODE, () => ({ action: 'accept', open: 'yes' }));
      agents.push(agent);
      await agent.connect(env, ['--no-daemon']);
      await until('the login to be offered', () => agent.visits.length === 1);
      assert.equal((await agent.visits[0]).status, 200);
      const asked = agent.elicitations[0];
      assert.ok(asked.mode === 'url');
      await until('notifications/elicitation/complete', () =>
        agent.completed.includes(asked.elicitationId),
      );
      await untilTools(agent.client, 'remote__whoami to be listed', (names) =>
        names.includes('remote__whoami'),
      );
      const who = await agent.call('remote__whoami');
      assert.notEqual(who.isError, true, textOf(who));
      assert.equal(fx.counts.codeExchanges, 1);
      for (const secret of fx.issuedSecrets)
        assert.equal(agent.stderr().includes(secret), false, 'serve printed no token');
    },
  );
});
