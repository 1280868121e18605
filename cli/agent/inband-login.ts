/**
 * The OAuth login the gateway offers an agent's user in-band (gateway/login-prompt.ts): the
 * same login `mcpctl login` runs, with the loopback listener in the process that holds the
 * session (the daemon, or `serve --no-daemon`).
 *
 * Guarantees:
 * - A login is started only for a server the session admits and runs (`oauthTarget`), on
 *   127.0.0.1 (a free port, or the configured `oauth.redirectUri`'s).
 * - The attempt's URL is the authorization URL (PKCE challenge and `state`, public by design);
 *   the code never leaves this process and is handed to the daemon once, exactly as
 *   `oauth.loginFinish` does (tokens stored once for every session).
 * - The listener takes one redirect (the one with the right `state`) and closes: after it,
 *   after `timeoutMs`, on `cancel()`, and when the login could not start. A request with a
 *   wrong or missing `state` is answered 400, signs nothing in and ends nothing: the login
 *   goes on waiting for the real redirect.
 */
import { MCP_SERVERS } from '../../api/index.js';
import { LOGIN_TTL_MS, listenForRedirect } from '../../auth/index.js';
import type { Daemon } from '../../controller/daemon.js';
import type { Session } from '../../controller/session.js';
import type { LoginAttempt, StartLogin } from '../../gateway/index.js';

/** As long as the daemon keeps a login it started. */
export const INBAND_LOGIN_TIMEOUT_MS = LOGIN_TTL_MS;

export function inbandLogin(
  daemon: Daemon,
  session: Session,
  timeoutMs: number = INBAND_LOGIN_TIMEOUT_MS,
): StartLogin {
  return async (name: string): Promise<LoginAttempt> => {
    const target = session.oauthTarget(name);
    const listener = await listenForRedirect(target.settings.redirectUri);
    try {
      const start = await daemon.loginStart(session, name, listener.redirectUri);
      const done = listener.waitForCode(start.state, timeoutMs).then(async (code) => {
        await daemon.loginFinish(start.state, code);
        return session.kind(MCP_SERVERS.kind).why(name);
      });
      // Whoever holds the attempt may never look at `done` (a declined question).
      done.catch(() => undefined);
      return {
        url: start.authorizationUrl,
        done,
        cancel: () => void listener.close(),
      };
    } catch (err) {
      await listener.close();
      throw err;
    }
  };
}
