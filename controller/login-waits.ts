/**
 * A session's OAuth logins: where a server signs in (its target), which servers wait for a
 * login, and trying them again once a login happened.
 *
 * Guarantees:
 * - `target` names only an admitted, runnable server, as this session would run it (variables
 *   expanded): a login contacts its URL, which a gated server may not do before approval.
 *   Otherwise ServerUnavailableError with the `why` answer (or `NoOAuth`).
 * - `afterPass` announces a server the pass left waiting for an OAuth login (Ready=False
 *   Unauthorized) once per stretch of waiting for one connection config; again only after it
 *   stopped waiting (signed in, disabled, edited) and waits anew. A pass that retried after
 *   someone's login and still waits announces nothing new.
 * - `retry` enqueues every server waiting for a login; nothing here connects.
 */
import { MCP_SERVERS, oauthTargetOf, type OAuthTarget } from '../api/index.js';
import type { DesiredState } from '../informers/types.js';
import { admit } from '../reconcilers/admission.js';
import type { ServerReconciler } from '../reconcilers/server-reconciler.js';
import type { WhyAnswer } from '../reconcilers/why.js';
import { ServerUnavailableError, UnknownServerError } from './errors.js';
import type { SessionAdmission } from './session-admission.js';

export interface LoginWaitsDeps {
  desired(): DesiredState;
  readonly admission: SessionAdmission;
  /** Why `name` is unavailable: the answer a refused target carries. */
  why(name: string): WhyAnswer;
  /** Where a pass left each server: `awaitingLogin` is the connectionId it waits with. */
  readonly reconciler: Pick<ServerReconciler, 'record' | 'retryLogins'>;
  enqueue(name: string): void;
  /** Tells the session's listeners that `name` waits for a login (`loginRequired`). */
  announce(name: string): void;
}

export class LoginWaits {
  readonly #deps: LoginWaitsDeps;
  /** The connectionId each server waiting for a login was announced for. */
  readonly #announced = new Map<string, string>();

  constructor(deps: LoginWaitsDeps) {
    this.#deps = deps;
  }

  /**
   * Where `name` signs in with OAuth, as this session would run it (variables expanded). Only
   * an admitted, runnable server: a login contacts its URL, which a gated server may not do
   * before approval. Otherwise ServerUnavailableError with the `why` answer.
   */
  target(name: string): OAuthTarget {
    const d = this.#deps;
    const desired = d.desired().kinds[MCP_SERVERS.kind];
    const server = desired.servers[name];
    if (!server) throw new UnknownServerError(name, Object.keys(desired.servers));
    const admission = admit(server, d.admission.context(desired));
    if (!admission.admitted || !admission.runnable) throw new ServerUnavailableError(d.why(name));
    const target = oauthTargetOf(admission.ticket.config, admission.ticket.scope);
    if (!target)
      throw new ServerUnavailableError({
        name,
        reason: 'NoOAuth',
        message: `server ${name} does not sign in with OAuth (a local command, an Authorization header, oauth.enabled false, or another authProviderType)`,
        action: 'none',
      });
    return target;
  }

  /**
   * After a pass of `name`: announces it when it now waits for a login it was not announced
   * for; forgets it when it waits no more.
   */
  afterPass(name: string): void {
    const waiting = this.#deps.reconciler.record(name)?.awaitingLogin;
    if (waiting === undefined) {
      this.#announced.delete(name);
      return;
    }
    if (this.#announced.get(name) === waiting) return;
    this.#announced.set(name, waiting);
    this.#deps.announce(name);
  }

  /** A login or logout happened: every server waiting for a login is reconciled again. */
  retry(): void {
    for (const name of this.#deps.reconciler.retryLogins()) this.#deps.enqueue(name);
  }
}
