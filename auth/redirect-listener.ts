/**
 * The loopback listener `mcpctl login` sends the browser back to (RFC 8252 §7.3).
 *
 * Guarantees:
 * - It listens on 127.0.0.1 only: a free port, or the port of a configured `redirectUri`
 *   (which must be an http://127.0.0.1 or http://localhost URL).
 * - It takes exactly one redirect to its path: the one carrying the expected `state`. With a
 *   `code` it answers "signed in" and resolves with the code; with an `error`, or no code, it
 *   answers 400 and rejects. Either way it then closes.
 * - A request to its path with another `state`, none, or several (a stray tab, a stale
 *   bookmark, another program) is answered 400 and changes nothing: the login goes on waiting
 *   for the real redirect, so nobody else can abort it. Its `code` or `error` is never looked
 *   at. The state is compared in constant time (unlimited tries must not leak it).
 *   Requests to other paths (a browser's /favicon.ico) get 404 and change nothing.
 * - It closes after `timeoutMs` without a redirect, and on `close()`, which also ends a pending
 *   `waitForCode` (rejected: cancelled); no timer outlives it.
 * - Nothing it says (answers, errors) contains the code.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const DEFAULT_REDIRECT_PATH = '/callback';

export class RedirectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedirectError';
  }
}

export interface RedirectListener {
  readonly redirectUri: string;
  /** The code of the one redirect carrying `state`; rejects on anything else or timeout. */
  waitForCode(state: string, timeoutMs: number): Promise<string>;
  close(): Promise<void>;
}

/** Where to listen for `configured` (a redirectUri from the config), or a free port. */
function planOf(configured: string | undefined): { port: number; path: string } {
  if (configured === undefined) return { port: 0, path: DEFAULT_REDIRECT_PATH };
  let url: URL;
  try {
    url = new URL(configured);
  } catch {
    throw new RedirectError(`oauth.redirectUri ${configured} is not a URL`);
  }
  if (url.protocol !== 'http:' || (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost'))
    throw new RedirectError(
      `oauth.redirectUri must be http://127.0.0.1:PORT/PATH (mcpctl listens on the loopback interface only), not ${url.origin}`,
    );
  if (url.port === '')
    throw new RedirectError(`oauth.redirectUri ${configured} needs an explicit port`);
  return { port: Number(url.port), path: url.pathname };
}

/** Whether `got` is exactly `expected`, in time independent of where they differ. */
function sameState(got: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(got), digest(expected));
}

const STRAY_ANSWER =
  'mcpctl: this is not the redirect of the login in progress (wrong or missing state); ignored, still waiting for the right one.\n';

export async function listenForRedirect(configured?: string): Promise<RedirectListener> {
  const plan = planOf(configured);
  let settle: ((result: { code?: string; error?: Error }) => void) | undefined;
  let expected: string | undefined;
  let used = false;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== plan.path || req.method !== 'GET' || used || expected === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    const q = url.searchParams;
    const states = q.getAll('state');
    if (states.length !== 1 || !sameState(states[0], expected)) {
      res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end(STRAY_ANSWER);
      return;
    }
    used = true;
    let outcome: { code?: string; error?: Error };
    if (q.get('error') !== null) {
      const what = (q.get('error') ?? '').replace(/[^\w.-]/g, '').slice(0, 64);
      outcome = { error: new RedirectError(`the authorization server refused the login: ${what}`) };
    } else if (!q.get('code')) {
      outcome = { error: new RedirectError('the redirect carried no authorization code') };
    } else {
      outcome = { code: q.get('code') ?? '' };
    }
    res
      .writeHead(outcome.error ? 400 : 200, { 'content-type': 'text/plain', connection: 'close' })
      .end(
        outcome.error
          ? `mcpctl: login failed: ${outcome.error.message}\n`
          : 'mcpctl: signed in; you can close this tab.\n',
      );
    settle?.(outcome);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new RedirectError(
          err.code === 'EADDRINUSE'
            ? `port ${plan.port} of oauth.redirectUri is in use; free it or change the redirectUri`
            : `cannot listen for the login redirect: ${err.message}`,
        ),
      ),
    );
    server.listen(plan.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    // A wait still pending ends now (its timer with it), not when its timeout would fire.
    settle?.({ error: new RedirectError('the login was cancelled before the redirect came') });
    closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closed;
  };
  return {
    redirectUri: `http://127.0.0.1:${port}${plan.path}`,
    waitForCode: (state, timeoutMs) =>
      new Promise<string>((resolve, reject) => {
        if (closed !== undefined) {
          reject(new RedirectError('the login was cancelled before the redirect came'));
          return;
        }
        expected = state;
        const timer = setTimeout(() => {
          settle = undefined;
          void close();
          reject(
            new RedirectError(
              `no login redirect within ${Math.round(timeoutMs / 1000)} s; run mcpctl login again`,
            ),
          );
        }, timeoutMs);
        settle = (outcome) => {
          settle = undefined;
          clearTimeout(timer);
          // Let the answer go out first, then stop listening.
          setImmediate(() => void close());
          if (outcome.error) reject(outcome.error);
          else resolve(outcome.code ?? '');
        };
      }),
    close,
  };
}
