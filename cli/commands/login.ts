/**
 * `mcpctl login NAME [--no-browser] [--timeout 5m]` and `mcpctl logout NAME`: OAuth sign-in
 * for a remote server, held by the daemon for every session (DESIGN §5, §7).
 *
 * Guarantees:
 * - login: with no daemon running, starts one for the command's workspace (the current folder,
 *   or --workspace) as `mcpctl serve` does, detached: the daemon holds the grant afterwards.
 * - login: listens on 127.0.0.1 (a free port, or the configured redirectUri's), asks the daemon
 *   to start an authorization-code login with PKCE, prints the URL (and opens a browser when
 *   one exists, unless --no-browser), takes exactly one redirect with the right `state` (a stray one
 *   with a wrong or missing state is answered 400 and the wait goes on), hands
 *   the code to the daemon on the same connection, and exits 0 once the server is Ready —
 *   else 1 with why (never an empty message). The listener is closed on every path.
 * - logout: the daemon forgets the tokens; the server is disconnected in every session and
 *   shows Ready=False Unauthorized.
 * - Nothing printed holds a token, a code or a client secret.
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
// The listener's own file: the CLI process needs none of the daemon's OAuth machinery.
import { listenForRedirect } from '../../auth/redirect-listener.js';
import type { WhyAnswer } from '../../controller/session.js';
import {
  commandEnv,
  withSession,
  type CommandEnv,
  type GlobalOptions,
  type Io,
} from '../command-env.js';
import { CliError, UsageError, messageOf } from '../errors.js';
import { parseDuration } from '../output/age.js';
import { RpcClient } from '../rpc/client.js';
import { connectOrStartDaemon } from '../serve/daemon-link.js';

const DEFAULT_LOGIN_TIMEOUT = '5m';

/** Opens `url` in the user's browser where there is one; failures are silent (URL printed). */
function openBrowser(url: string): void {
  const opener =
    process.platform === 'darwin'
      ? 'open'
      : process.platform === 'linux' && (process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
        ? 'xdg-open'
        : undefined;
  if (opener === undefined) return;
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the printed URL is enough.
  }
}

/**
 * `env` that starts a daemon when none answers: a login is useless without the daemon that
 * keeps the grant, so asking the user to start one first would only add a step. Unchanged
 * (plain connect, "start one" error) when the command has no folder to start it for.
 */
function startingDaemon(env: CommandEnv, io: Io): CommandEnv {
  const workspace = env.selector.workspace;
  if (workspace === undefined) return env;
  const connect = async (): Promise<RpcClient> =>
    new RpcClient(
      await connectOrStartDaemon({
        socket: env.socket,
        workspace,
        command: 'mcpctl login',
        answerTimeoutMs: env.answerTimeoutMs,
        log: (message) => io.err(`mcpctl login: ${message}\n`),
      }),
      { answerTimeoutMs: env.answerTimeoutMs },
    );
  return { ...env, connect };
}

/** A failure of `login` always says what failed: an empty message gets one. */
async function saysWhatFailed<T>(name: string, run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (err) {
    if (err instanceof Error && err.message.trim() === '')
      throw new CliError(
        `login for ${name} failed without a reason (${err.name}); see mcpctl describe server ${name}`,
      );
    throw err;
  }
}

export function registerLogin(program: Command, io: Io): void {
  program
    .command('login')
    .description('sign in to a remote server with OAuth; every session of the daemon uses it')
    .argument('<name>', 'server name')
    .option('--no-browser', 'print the URL only, do not open a browser')
    .option('--timeout <duration>', 'how long to wait for the redirect', DEFAULT_LOGIN_TIMEOUT)
    .action(async (name: string, _opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { browser: boolean; timeout: string }>();
      const timeoutMs = parseDuration(opts.timeout);
      if (timeoutMs === undefined || timeoutMs <= 0 || timeoutMs > 2 ** 31 - 1)
        throw new UsageError(`--timeout ${opts.timeout} is not a duration like 90s or 5m`);
      const env = startingDaemon(commandEnv(opts, io), io);
      const answer = await saysWhatFailed(
        name,
        withSession(env, async (client) => {
          const plan = await client.call<{ redirectUri: string | null }>('oauth.loginPlan', {
            ...env.selector,
            name,
          });
          let listener;
          try {
            listener = await listenForRedirect(plan.redirectUri ?? undefined);
          } catch (err) {
            throw new CliError(messageOf(err));
          }
          try {
            const start = await client.call<{ authorizationUrl: string; state: string }>(
              'oauth.loginStart',
              { ...env.selector, name, redirectUri: listener.redirectUri },
            );
            io.out(`Sign in to ${name} in your browser:\n  ${start.authorizationUrl}\n`);
            io.out(`Waiting for the redirect to ${listener.redirectUri} ...\n`);
            if (opts.browser) openBrowser(start.authorizationUrl);
            let code: string;
            try {
              code = await listener.waitForCode(start.state, timeoutMs);
            } catch (err) {
              throw new CliError(`login for ${name} failed: ${messageOf(err)}`);
            }
            return await client.call<WhyAnswer>('oauth.loginFinish', {
              ...env.selector,
              name,
              state: start.state,
              code,
            });
          } finally {
            await listener.close();
          }
        }),
      );
      if (answer.reason !== 'Available' && answer.reason !== 'Idle')
        throw new CliError(
          `signed in, but server/${name} is not ready: ${answer.message}; ${answer.action}`,
        );
      // An idle server is listed from its catalog; its first request connects with the grant.
      io.out(
        `server/${name} signed in (${answer.reason === 'Idle' ? 'Idle: its first request connects' : 'Ready'})\n`,
      );
    });

  program
    .command('logout')
    .description("forget a remote server's OAuth tokens and disconnect it")
    .argument('<name>', 'server name')
    .action(async (name: string, _opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions>();
      const env = commandEnv(opts, io);
      const result = await withSession(env, (client) =>
        client.call<{ removed: boolean; server: WhyAnswer }>('oauth.logout', {
          ...env.selector,
          name,
        }),
      );
      io.out(
        result.removed
          ? `server/${name} signed out: its tokens are forgotten\n`
          : `server/${name} had no stored login\n`,
      );
    });
}
