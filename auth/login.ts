/**
 * Logins in progress: authorization code with PKCE (RFC 7636), through the SDK's `auth()`.
 * The loopback listener that takes the redirect is redirect-listener.ts, in the process that
 * shows the user the URL.
 *
 * Guarantees:
 * - `begin` runs discovery (and registration when needed) and returns the authorization URL,
 *   which carries the PKCE challenge and a random `state` (24 bytes); it never reuses stored
 *   tokens.
 * - A code is accepted only with the `state` it was issued for, once (a replayed redirect
 *   finds nothing), within LOGIN_TTL_MS; older logins are forgotten.
 * - A failed step always says what failed: the step, the endpoint, and the server's error
 *   code or the error's name when it gave no description — with no token, code, verifier or
 *   client secret in it.
 */
import { randomBytes } from 'node:crypto';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthTarget } from '../api/index.js';
import { redactUrl, scrubSecrets } from '../api/index.js';
import type { Credential } from './credential.js';
import { LoginRequiredError, LoginStateError, reasonOf } from './errors.js';
import { providerOf, type LoginInProgress } from './provider.js';
import { scopeOf } from './registration.js';

/** A login request that the redirect did not complete in time is forgotten. */
export const LOGIN_TTL_MS = 10 * 60_000;

export interface LoginStart {
  readonly authorizationUrl: string;
  readonly state: string;
}

interface PendingLogin extends LoginInProgress {
  readonly expiresAt: number;
  readonly credential: Credential;
  provider?: OAuthClientProvider;
}

/** A login step's failure, saying which step and why; no token, code or secret in it. */
function loginFailed(step: string, err: unknown, c: Credential, more: string[] = []): Error {
  return new Error(scrubSecrets(`${step}: ${reasonOf(err)}`, [...c.secrets(), ...more]));
}

/** The logins a daemon has started and not yet finished, by `state`. */
export class Logins {
  readonly #pending = new Map<string, PendingLogin>();

  constructor(private readonly now: () => number) {}

  /** Starts a login (discovery, registration if needed, PKCE); the URL is for the user. */
  async begin(c: Credential, redirectUri: string): Promise<LoginStart> {
    this.#prune();
    const target = c.target;
    const state = randomBytes(24).toString('base64url');
    const login: PendingLogin = { state, expiresAt: this.now() + LOGIN_TTL_MS, credential: c };
    const provider = providerOf(c, { kind: 'login', redirectUrl: redirectUri, login });
    login.provider = provider;
    let result;
    try {
      result = await auth(provider, {
        serverUrl: target.serverUrl,
        scope: scopeOf(target),
        fetchFn: c.fetch,
      });
    } catch (err) {
      throw loginFailed(`starting the sign-in to ${redactUrl(target.serverUrl)} failed`, err, c);
    }
    if (result !== 'REDIRECT' || login.authorizationUrl === undefined)
      throw new Error(
        `the authorization server of ${redactUrl(target.serverUrl)} did not ask for a login`,
      );
    this.#pending.set(state, login);
    return { authorizationUrl: login.authorizationUrl.href, state };
  }

  /** Completes the login `state` names with the code the redirect brought. */
  async finish(state: string, code: string): Promise<OAuthTarget> {
    this.#prune();
    const login = this.#pending.get(state);
    if (!login?.provider)
      throw new LoginStateError(
        'no login in progress for this redirect (its state is unknown or expired); run mcpctl login again',
      );
    this.#pending.delete(state); // once: a replayed redirect finds nothing
    const c = login.credential;
    let result;
    try {
      result = await auth(login.provider, {
        serverUrl: c.target.serverUrl,
        authorizationCode: code,
        scope: scopeOf(c.target),
        fetchFn: c.fetch,
      });
    } catch (err) {
      throw loginFailed(`exchanging the sign-in code at ${c.tokenEndpoint()} failed`, err, c, [
        code,
        login.verifier ?? '',
      ]);
    }
    if (result !== 'AUTHORIZED')
      throw new LoginRequiredError(c.target.serverUrl, 'the login was not accepted');
    return c.target;
  }

  #prune(): void {
    for (const [state, l] of this.#pending)
      if (this.now() > l.expiresAt) this.#pending.delete(state);
  }
}
