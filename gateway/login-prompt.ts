/**
 * Offering an OAuth login to the agent's user in-band, through URL-mode elicitation (issue 16
 * "Through the agent"; MCP 2025-11-25 `elicitation/create` with `mode: "url"` and
 * `notifications/elicitation/complete`).
 *
 * Guarantees:
 * - Asked only when the client declared `elicitation.url` and the gateway was given a way to
 *   log in (`StartLogin`, from cli/): about a server that starts waiting for a login, and about
 *   those already waiting once the client has initialized. One server is never asked about
 *   twice at once by one agent connection.
 * - The question names the server escaped (api/escape.ts), as every surface shows a name.
 * - The URL shown is the one the login gives (the authorization URL: PKCE challenge and
 *   `state`, never a token, code or client secret); nothing of it is logged.
 * - The user's answer decides nothing by itself: the login finishes only when the redirect
 *   carrying the attempt's `state` reaches the login's listener. Decline, cancel, an error or
 *   an unanswered question cancel the attempt (its listener closes); a failed or timed-out
 *   attempt withdraws a question still open.
 * - When the login finished, or the server stopped waiting some other way while the user was
 *   signing in (e.g. `mcpctl login`, another agent), the client gets
 *   `notifications/elicitation/complete` for that elicitation, once; a question not answered
 *   yet is withdrawn instead.
 * - `close()` (the agent's connection ended) cancels every attempt: no listener stays open.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { escapeText, quoted, messageOf } from '../api/index.js';
import type { SessionPort, WhyText } from './session-port.js';

/** One login started for the agent's user to finish in a browser. */
export interface LoginAttempt {
  /** Where the user signs in (carries the PKCE challenge and `state` only). */
  readonly url: string;
  /**
   * The server's `why` answer once the redirect with the right `state` came and the login was
   * completed; rejects on a wrong redirect, a timeout or `cancel()`.
   */
  readonly done: Promise<WhyText>;
  /** Stops waiting for the redirect (its listener closes); `done` rejects. Idempotent. */
  cancel(): void;
}

/** Starts a login for a server of the gateway's session. */
export type StartLogin = (server: string) => Promise<LoginAttempt>;

export interface LoginPromptOptions {
  readonly login: StartLogin;
  /** How long the question to the agent stays open. */
  readonly timeoutMs: number;
  readonly log: (message: string) => void;
}

export interface LoginPrompts {
  /** Asks about the servers already waiting; call once the client has initialized. */
  initialized(): void;
  /** The agent's connection ended: every attempt is cancelled. */
  close(): void;
}

/** One question about one server, from the login's start to its end. */
interface Asking {
  readonly elicitationId: string;
  /** Withdraws the question while it is open. */
  readonly withdraw: AbortController;
  attempt?: LoginAttempt;
  /** The user agreed to open the URL: completion is announced from now on. */
  accepted: boolean;
  /** Nothing more to do (closed, or the server no longer waits); quiet from now on. */
  over: boolean;
  completed: boolean;
}

type Outcome =
  { readonly ok: true; readonly why: WhyText } | { readonly ok: false; readonly error: string };

export function promptLogins(
  server: Server,
  port: Pick<SessionPort, 'loginsRequired' | 'onLoginRequired' | 'onListChanged' | 'why'>,
  o: LoginPromptOptions,
): LoginPrompts {
  const asking = new Map<string, Asking>();
  let closed = false;
  // Before `initialized` the capabilities are unknown; the replay in initialized() covers that.
  const urlMode = () => server.getClientCapabilities()?.elicitation?.url !== undefined;

  const complete = (name: string, a: Asking) => {
    if (a.completed || !a.accepted) return;
    a.completed = true;
    void server
      .notification({
        method: 'notifications/elicitation/complete',
        params: { elicitationId: a.elicitationId },
      })
      .catch((err: unknown) =>
        o.log(`could not tell the agent the login for ${name} completed: ${messageOf(err)}`),
      );
  };

  /** Ends a question that has nothing left to wait for: completed when accepted, else withdrawn. */
  const end = (name: string, a: Asking) => {
    if (a.over) return;
    a.over = true;
    if (a.accepted) complete(name, a);
    else a.withdraw.abort();
    a.attempt?.cancel();
  };

  const run = async (name: string, a: Asking): Promise<void> => {
    const attempt = await o.login(name);
    a.attempt = attempt;
    if (a.over) return; // closed, or signed in elsewhere, while the login started
    const outcome: Promise<Outcome> = attempt.done.then(
      (why) => ({ ok: true, why }),
      (err: unknown) => ({ ok: false, error: messageOf(err) }),
    );
    // An attempt that fails or times out while the question is open withdraws the question.
    let failed: string | undefined;
    void outcome.then((r) => {
      if (r.ok) return;
      failed = r.error;
      if (!a.accepted) a.withdraw.abort();
    });
    let action: string;
    try {
      const result = await server.elicitInput(
        {
          mode: 'url',
          message: escapeText(
            `The MCP server ${quoted(name)} asks you to sign in (OAuth). Open the link to sign in in your browser; mcpctl keeps the login for every session on this machine.`,
          ),
          url: attempt.url,
          elicitationId: a.elicitationId,
        },
        { timeout: o.timeoutMs, signal: a.withdraw.signal },
      );
      action = result.action;
    } catch (err) {
      if (a.over) return;
      throw new Error(failed ?? messageOf(err));
    }
    if (action !== 'accept') {
      o.log(`login for ${name} not offered again: the user answered ${action} (nothing changed)`);
      return;
    }
    a.accepted = true;
    if (a.over) {
      complete(name, a); // signed in elsewhere while the question was open
      return;
    }
    const r = await outcome;
    if (a.over) return;
    if (!r.ok) throw new Error(r.error);
    complete(name, a);
    if (r.why.reason !== 'Available')
      o.log(`signed in to ${name}, but it is not ready: ${r.why.message}`);
  };

  const ask = (name: string) => {
    if (closed || !urlMode() || asking.has(name)) return;
    const a: Asking = {
      elicitationId: randomUUID(),
      withdraw: new AbortController(),
      accepted: false,
      over: false,
      completed: false,
    };
    asking.set(name, a);
    void run(name, a)
      .catch((err: unknown) => o.log(`login for ${name} through the agent: ${messageOf(err)}`))
      .finally(() => {
        a.over = true;
        a.attempt?.cancel();
        if (asking.get(name) === a) asking.delete(name);
      });
  };

  port.onLoginRequired(ask);
  // The server may stop waiting without this attempt (`mcpctl login`, another agent's login).
  port.onListChanged(() => {
    for (const [name, a] of asking)
      void port.why(name).then(
        (why) => {
          if (why.reason !== 'Unauthorized') end(name, a);
        },
        (err: unknown) => o.log(`could not check ${name}: ${messageOf(err)}`),
      );
  });

  return {
    initialized() {
      if (closed || !urlMode()) return;
      void port.loginsRequired().then(
        (names) => names.forEach(ask),
        (err: unknown) =>
          o.log(`could not list the servers waiting for a login: ${messageOf(err)}`),
      );
    },
    close() {
      closed = true;
      for (const a of asking.values()) {
        a.over = true;
        a.withdraw.abort();
        a.attempt?.cancel();
      }
      asking.clear();
    },
  };
}
