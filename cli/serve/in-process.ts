/**
 * `mcpctl serve` with the gateway in this process: `--no-daemon` (a private session and pool,
 * ended with serve) and the inert serve mcpctl starts for itself (cli/agent/inert-port.ts). Loaded only
 * for these, so that the usual serve, a pipe to the daemon (pipe.ts), starts without the
 * controller, the pool and the gateway.
 *
 * Guarantees: stdout carries only the gateway's MCP messages and the answers to invalid ones
 * (stdio-transport.ts: every line is checked as the daemon checks an agent's), every log line
 * goes to `log`; it resolves with the exit code once stdin ends or closes, a
 * signal comes or the MCP connection closes, after the gateway (and the private session with
 * every server process) is closed.
 */
import type { Gateway, MetaToolsMode } from '../../gateway/index.js';
import { messageOf } from '../errors.js';
import {
  openAgentGateway,
  openInertAgentGateway,
  type AgentGatewayOptions,
} from '../agent/gateway.js';
import { openPrivateSession, type PrivateSessionOptions } from './private-session.js';
import { StdioLineTransport } from './stdio-transport.js';

/** Serves no tools: every request is answered with `reason`. */
export function serveInert(reason: string, options: AgentGatewayOptions): Promise<number> {
  return serveStdio(openInertAgentGateway(reason, options), options.log);
}

/** `--no-daemon`: a session and pool of this process's own, behind a gateway on stdio. */
export async function serveInProcess(
  session: PrivateSessionOptions,
  options: AgentGatewayOptions & { readonly metaTools: MetaToolsMode },
): Promise<number> {
  const log = options.log;
  const own = await openPrivateSession(session);
  let gateway: Gateway;
  try {
    // No daemon for `mcpctl login` to reach: the agent's user can sign in in-band only.
    gateway = await openAgentGateway(own.core, own.session, options);
  } catch (err) {
    await own.close();
    throw err;
  }
  const code = await serveStdio(gateway, log);
  await own.close().catch((err: unknown) => log(`closing the session: ${messageOf(err)}`));
  return code;
}

/** Serves `gateway` on this process's stdio until the agent or a signal ends it. */
async function serveStdio(gateway: Gateway, log: (message: string) => void): Promise<number> {
  const transport = new StdioLineTransport();
  transport.onerror = (err) => log(`reading from the client: ${err.message}`);

  let finish: (why: { code: number; reason: string }) => void = () => undefined;
  const finished = new Promise<{ code: number; reason: string }>((resolve) => (finish = resolve));
  const onStdinEnd = () => finish({ code: 0, reason: 'stdin ended' });
  const onSignal = (signal: NodeJS.Signals) => finish({ code: 0, reason: signal });
  process.stdin.once('end', onStdinEnd);
  process.stdin.once('close', onStdinEnd);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  gateway.onclose = () => finish({ code: 0, reason: 'the MCP connection closed' });

  try {
    await gateway.connect(transport);
  } catch (err) {
    finish({ code: 1, reason: `cannot serve on stdio: ${messageOf(err)}` });
  }
  const outcome = await finished;
  if (outcome.code !== 0) log(outcome.reason);
  process.stdin.off('end', onStdinEnd);
  process.stdin.off('close', onStdinEnd);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  gateway.onclose = undefined;
  await gateway.close().catch((err: unknown) => log(`closing the gateway: ${messageOf(err)}`));
  return outcome.code;
}
