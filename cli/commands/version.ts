/**
 * `mcpctl version [-o text|json]`: this mcpctl's version, and the running daemon's
 * (`daemon.status`), kubectl style.
 *
 * Guarantees:
 * - The client's version is printed whatever the daemon does; no daemon at the socket is not a
 *   failure: the text says none runs (and where it was looked for), JSON has `daemon: null`.
 *   Exit 0 in both cases; a daemon that cannot be asked (another user's socket, one that does
 *   not answer) is the usual error (exit 1), after the client's line.
 * - A daemon of another version is named as such, with what to do (`mcpctl restart`: the
 *   agents' serves bring up one of this version and keep their sessions).
 * - Nothing is started: asking never starts a daemon.
 */
import { Option, type Command } from 'commander';
import { commandEnv, translateError, type GlobalOptions, type Io } from '../command-env.js';
import type { DaemonStatus } from '../methods/daemon.js';
import { humanDuration } from '../output/age.js';
import { json } from '../output/format.js';
import { DaemonUnavailableError, connectClient } from '../rpc/client.js';
import { VERSION } from '../version.js';

/** What `-o json` prints. */
export interface VersionInfo {
  readonly client: { readonly version: string; readonly node: string };
  /** null: no daemon runs at `socket`. */
  readonly daemon: {
    readonly version: string;
    readonly pid: number;
    readonly startedAt: string;
  } | null;
  readonly socket: string;
}

export function registerVersion(program: Command, io: Io): void {
  program
    .command('version')
    .description("print this mcpctl's version and the running daemon's")
    .addOption(
      new Option('-o, --output <format>', 'output format')
        .choices(['text', 'json'])
        .default('text'),
    )
    .action(async (_opts: object, cmd: Command) => {
      const opts = cmd.optsWithGlobals<GlobalOptions & { output: 'text' | 'json' }>();
      const env = commandEnv(opts, io);
      const client = { version: VERSION, node: process.versions.node };
      if (opts.output === 'text') io.out(`Client Version: ${VERSION} (node ${client.node})\n`);
      const status = await daemonStatus(env.socket, env.answerTimeoutMs);
      const daemon = status
        ? { version: status.version, pid: status.pid, startedAt: status.startedAt }
        : null;
      if (opts.output === 'json') {
        const info: VersionInfo = { client, daemon, socket: env.socket };
        io.out(json(info));
        return;
      }
      if (!daemon) {
        io.out(`Daemon Version: none running (at ${env.socket})\n`);
        return;
      }
      const up = humanDuration(env.now() - Date.parse(daemon.startedAt));
      io.out(`Daemon Version: ${daemon.version} (pid ${daemon.pid}, up ${up}, ${env.socket})\n`);
      if (daemon.version !== VERSION)
        io.err(
          `note: the daemon runs mcpctl ${daemon.version}, this is ${VERSION}; run 'mcpctl restart' to replace it (agents keep their sessions)\n`,
        );
    });
}

/** The daemon's status, or undefined when nothing listens at `socket`. */
async function daemonStatus(
  socket: string,
  answerTimeoutMs: number,
): Promise<DaemonStatus | undefined> {
  let client;
  try {
    client = await connectClient(socket, undefined, { answerTimeoutMs });
  } catch (err) {
    const refused = err instanceof DaemonUnavailableError;
    // Another user's socket or a full queue is a daemon that is there: say what is wrong.
    if (refused && err.code !== 'EACCES' && err.code !== 'EAGAIN') return undefined;
    throw translateError(err, socket);
  }
  try {
    return await client.call<DaemonStatus>('daemon.status', {});
  } catch (err) {
    throw translateError(err, socket);
  } finally {
    await client.close();
  }
}
