/**
 * `mcpctl serve --no-daemon`: the controller in this process. It is the daemon core
 * (controller/daemon.ts) without a socket: a pool of its own, the real approval store (the
 * same file the CLI and any daemon use), and one session (the core's default one) for the
 * workspace, ceiling and --mcp-config of this serve.
 *
 * Guarantees: nothing is shared with a daemon, so no daemon is needed or started; `close()`
 * stops the core — the session (watchers off, leases released), then the pool, which ends
 * every server process (whole process groups) before it resolves. No children record is kept:
 * the servers end with this process.
 */
import { sessionFlagsOf, type SessionFlags } from '../../api/index.js';
import { Daemon, type DaemonLog } from '../../controller/daemon.js';
import type { Session } from '../../controller/session.js';
import { homeDirectory } from '../rpc/socket-path.js';
import { INSIDE_MCPCTL_ENV } from '../agent/inert-port.js';

export interface PrivateSessionOptions extends SessionFlags {
  readonly debounceMs?: number;
  readonly log: (message: string) => void;
}

export interface PrivateSession {
  readonly session: Session;
  /** The in-process core (its OAuth logins: the gateway offers them in-band). */
  readonly core: Daemon;
  /** Stops the in-process controller: the session, then the pool and every server process. */
  close(): Promise<void>;
}

export async function openPrivateSession(o: PrivateSessionOptions): Promise<PrivateSession> {
  const mark = process.env[INSIDE_MCPCTL_ENV];
  const core = await Daemon.start({
    ...sessionFlagsOf(o),
    home: homeDirectory(),
    ...(o.debounceMs === undefined ? {} : { debounceMs: o.debounceMs }),
    // The session is this process's own environment, which has the mark already (run.ts);
    // said here too, so no server of this controller can miss it.
    ...(mark === undefined ? {} : { serverEnv: { [INSIDE_MCPCTL_ENV]: mark } }),
    log: stderrLog(o.log),
  });
  return { session: core.defaultSession, core, close: () => core.stop() };
}

/** Warnings and errors as plain lines (the agent shows stderr in its MCP log); no chatter. */
function stderrLog(log: (message: string) => void): DaemonLog {
  const line = (obj: object, msg: string) => {
    const fields = Object.entries(obj)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    log(fields ? `${msg} (${fields})` : msg);
  };
  return { debug: () => undefined, info: () => undefined, warn: line, error: line };
}
