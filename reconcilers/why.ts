/**
 * Why a server's tools are unavailable, and what fixes it (DESIGN §4 rule 16).
 *
 * Classification uses the merged server map before allowlist filtering, so a server filtered
 * out by a narrowed allowlist is `NotAllowed`, never `Removed`.
 *
 * A suggested command pastes into a shell as shown (shell-quote.ts), and a name to write into a
 * config file is quoted as JSON with control characters escaped, whatever the name holds.
 */
import { quoteName, type DesiredServer } from '../api/index.js';
import { decideAdmission, runtimeOf, type AdmissionContext } from './admission.js';
import type { ServerRecord } from './server-record.js';
import { commandHint } from './shell-quote.js';

export type UnavailableReason =
  | 'NotAllowed'
  | 'Excluded'
  | 'PendingApproval'
  | 'Rejected'
  | 'Removed'
  | 'Disabled'
  | 'UntrustedFolder'
  | 'ConnectFailed'
  | 'MissingEnv'
  | 'Unauthorized';

export interface WhyAnswer {
  readonly name: string;
  /** `Available` when the server is Ready; `Unknown` when no such server was ever configured. */
  readonly reason: UnavailableReason | 'Available' | 'Connecting' | 'Unknown';
  readonly message: string;
  readonly action: string;
}

export interface WhyContext extends AdmissionContext {
  readonly server: DesiredServer | undefined;
  readonly record: ServerRecord | undefined;
  readonly removed: boolean;
  /** The `--allowed-mcp-server-names` ceiling, if any. */
  readonly ceiling: readonly string[] | undefined;
  /** Settings' own `mcp.allowed`, if any. */
  readonly settingsAllowed: readonly string[] | undefined;
}

export function why(name: string, ctx: WhyContext): WhyAnswer {
  const { server } = ctx;
  if (!server) {
    if (ctx.removed)
      return {
        name,
        reason: 'Removed',
        message: `server ${name} was removed from the config during this session`,
        action: `add ${quoteName(name)} back under mcpServers in a settings file or .mcp.json`,
      };
    return {
      name,
      reason: 'Unknown',
      message: `no server named ${name} is configured for this session`,
      action: `add ${quoteName(name)} under mcpServers in a settings file or .mcp.json`,
    };
  }
  const decision = decideAdmission(server, ctx);
  if (!decision.admitted) {
    return {
      name,
      reason: decision.reason,
      message: decision.message,
      action: actionFor(name, server, decision.reason, ctx),
    };
  }
  const ready = ctx.record?.condition('Ready');
  if (ready?.status === 'False' && ready.reason === 'MissingEnv') {
    const runtime = runtimeOf(server, ctx);
    const vars = runtime.runnable ? [] : runtime.missing;
    const first = vars[0] ?? 'the variable';
    return {
      name,
      reason: 'MissingEnv',
      message: `server ${name} did not start: ${ready.message}`,
      action: `set ${vars.join(' and ') || first} in the environment the agent starts 'mcpctl serve' from (or give a default: \${${first}:-value} in .mcp.json), then restart the agent's mcpctl serve`,
    };
  }
  if (ready?.status === 'False' && ready.reason === 'Unauthorized')
    return {
      name,
      reason: 'Unauthorized',
      message: `server ${name} is waiting for an OAuth login: ${ready.message}`,
      action: `run ${commandHint(['mcpctl', 'login', name])}`,
    };
  if (ready?.status === 'True')
    return {
      name,
      reason: 'Available',
      message: `server ${name} is ready: ${ready.message}`,
      action: 'none',
    };
  if (ready?.status === 'False')
    return {
      name,
      reason: 'ConnectFailed',
      message: `server ${name} failed to connect: ${ready.message}`,
      action: `fix the server's command or URL in ${server.source} and save; mcpctl retries with back-off (${commandHint(['mcpctl', 'describe', 'server', name])} shows its stderr)`,
    };
  return {
    name,
    reason: 'Connecting',
    message: `server ${name} is connecting`,
    action: `wait: ${commandHint(['mcpctl', 'wait', `server/${name}`, '--for=condition=Ready'])}`,
  };
}

function actionFor(
  name: string,
  server: DesiredServer,
  reason: Exclude<
    WhyAnswer['reason'],
    | 'Available'
    | 'Connecting'
    | 'Unknown'
    | 'Removed'
    | 'ConnectFailed'
    | 'MissingEnv'
    | 'Unauthorized'
  >,
  ctx: WhyContext,
): string {
  switch (reason) {
    case 'PendingApproval':
      return `run ${commandHint(['mcpctl', 'approve', name])} (or ${commandHint(['mcpctl', 'approve', name, '--session'])} for this session only)`;
    case 'Rejected':
      return `edit the server's config in ${server.source} to be asked again, or run ${commandHint(['mcpctl', 'approve', name])}`;
    case 'NotAllowed': {
      const inCeiling = ctx.ceiling === undefined || ctx.ceiling.includes(name);
      if (!inCeiling)
        return `the daemon was started with --allowed-mcp-server-names=${(ctx.ceiling ?? []).join(',')}; restart it with ${name} in that list`;
      return `add ${quoteName(name)} to mcp.allowed in your settings (now ${JSON.stringify(ctx.settingsAllowed ?? [])})`;
    }
    case 'Excluded':
      return `remove ${quoteName(name)} from mcp.excluded in your settings`;
    case 'Disabled':
      return `set "disabled": false (or remove it) for ${name} in ${server.source}`;
    case 'UntrustedFolder':
      return `trust the workspace ${ctx.workspace} in ~/.qwen/trustedFolders.json ("TRUST_FOLDER"), or turn off security.folderTrust.enabled`;
  }
}
