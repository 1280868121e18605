/**
 * Why a server's tools are unavailable, and what fixes it (DESIGN §4 rule 16).
 *
 * Classification uses the merged server map before allowlist filtering, so a server filtered
 * out by a narrowed allowlist is `NotAllowed`, never `Removed`.
 *
 * A suggested command pastes into a shell as shown (shell-quote.ts), and a name to write into a
 * config file is quoted as JSON with control characters escaped, whatever the name holds.
 */
import {
  LANGUAGE_SERVERS,
  MCP_SERVERS,
  isNamePattern,
  matchesNamePattern,
  namePatternTest,
  quoteName,
  type KindDescriptor,
  type KindFixWords,
  type DesiredLanguageServer,
  type DesiredServer,
} from '../api/index.js';
import {
  decideAdmission,
  runtimeOf,
  type AdmissibleServer,
  type AdmissionContext,
  type NotRunnable,
} from './admission.js';
import type { ServedLease, ServerRecord } from './server-record.js';
import { PINNED_CONDITION } from './pins.js';
import { commandHint } from './shell-quote.js';

/** How `why` speaks of a kind of server: its words, files and CLI names. */
export interface WhyKind<S extends AdmissibleServer> extends KindFixWords {
  readonly noun: string;
  /** `server/NAME`, `languageserver/NAME`: what `mcpctl wait` takes. */
  readonly resource: string;
  /** What `mcpctl approve` / `describe` take for `name`. */
  ref(name: string): string;
  /** What the server cannot run with now, when it is admitted; undefined when runnable. */
  notRunnable(server: S, ctx: AdmissionContext<S>): NotRunnable | undefined;
}

/** How `why` speaks of the kind `descriptor` describes: its words, and what it cannot run with. */
function whyKindOf<S extends AdmissibleServer>(descriptor: KindDescriptor): WhyKind<S> {
  return {
    noun: descriptor.noun,
    resource: descriptor.objectPrefix,
    ref: (name) => descriptor.label(name),
    ...descriptor.fixWords,
    notRunnable: (server, ctx) => {
      const r = runtimeOf(server, ctx);
      return r.runnable ? undefined : r;
    },
  };
}

export const MCP_WHY: WhyKind<DesiredServer> = whyKindOf(MCP_SERVERS);
export const LSP_WHY: WhyKind<DesiredLanguageServer> = whyKindOf(LANGUAGE_SERVERS);

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
  | 'InvalidConfig'
  | 'CrashLoopBackOff'
  | 'Unauthorized'
  /** Ready, but some of its tools or prompts are held by their pins (pins.ts). */
  | 'ToolsChanged'
  | 'ToolsRejected'
  | 'PinsUnreadable';

const PIN_REASONS: ReadonlySet<string> = new Set([
  'ToolsChanged',
  'ToolsRejected',
  'PinsUnreadable',
]);
const isPinReason = (r: string): r is 'ToolsChanged' | 'ToolsRejected' | 'PinsUnreadable' =>
  PIN_REASONS.has(r);

export interface WhyAnswer {
  readonly name: string;
  /** `Available` when the server is Ready; `Unknown` when no such server was ever configured. */
  readonly reason: UnavailableReason | 'Available' | 'Idle' | 'Connecting' | 'Unknown';
  readonly message: string;
  readonly action: string;
}

export interface WhyContext<
  S extends AdmissibleServer = DesiredServer,
> extends AdmissionContext<S> {
  readonly server: S | undefined;
  readonly record: ServerRecord<unknown, ServedLease> | undefined;
  readonly removed: boolean;
  /** The `--allowed-mcp-server-names` ceiling, if any. */
  readonly ceiling: readonly string[] | undefined;
  /** Settings' own `mcp.allowed`, if any. */
  readonly settingsAllowed: readonly string[] | undefined;
  /** Settings' own `mcp.excluded` (merged, globs as written), if any. */
  readonly settingsExcluded?: readonly string[] | undefined;
}

export function why(name: string, ctx: WhyContext): WhyAnswer;
export function why<S extends AdmissibleServer>(
  name: string,
  ctx: WhyContext<S>,
  kind: WhyKind<S>,
): WhyAnswer;
export function why<S extends AdmissibleServer>(
  name: string,
  ctx: WhyContext<S>,
  kind: WhyKind<S> = MCP_WHY,
): WhyAnswer {
  const { server } = ctx;
  const noun = kind.noun;
  if (!server) {
    if (ctx.removed)
      return {
        name,
        reason: 'Removed',
        message: `${noun} ${name} was removed from the config during this session`,
        action: `add ${quoteName(name)} back ${kind.addWhere}`,
      };
    return {
      name,
      reason: 'Unknown',
      message: `no ${noun} named ${name} is configured for this session`,
      action: `add ${quoteName(name)} ${kind.addWhere}`,
    };
  }
  const decision = decideAdmission(server, ctx);
  if (!decision.admitted) {
    return {
      name,
      reason: decision.reason,
      message: decision.message,
      action: actionFor(name, server, decision.reason, ctx, kind),
    };
  }
  const ready = ctx.record?.condition('Ready');
  if (ready?.status === 'False' && ready.reason === 'MissingEnv') {
    const runtime = kind.notRunnable(server, ctx);
    const vars = runtime?.missing ?? [];
    const first = vars[0] ?? 'the variable';
    return {
      name,
      reason: 'MissingEnv',
      message: `${noun} ${name} did not start: ${ready.message}`,
      action: `set ${vars.join(' and ') || first} in the environment the agent starts 'mcpctl serve' from (or give a default: \${${first}:-value} in ${kind.projectFile}), then restart the agent's mcpctl serve`,
    };
  }
  if (ready?.status === 'False' && ready.reason === 'InvalidConfig')
    return {
      name,
      reason: 'InvalidConfig',
      message: `${noun} ${name} did not start: ${ready.message}`,
      action: `fix its entry in ${server.source} and save`,
    };
  if (ready?.status === 'False' && ctx.record?.gaveUp !== undefined)
    return {
      name,
      reason: 'CrashLoopBackOff',
      message: `${noun} ${name} is not restarted any more: ${ready.message}`,
      action: `fix or edit its entry in ${server.source} and save, or run ${commandHint(['mcpctl', 'reload'])} (${commandHint(['mcpctl', 'describe', kind.resource, name])} shows its stderr)`,
    };
  if (ready?.status === 'False' && ready.reason === 'Unauthorized')
    return {
      name,
      reason: 'Unauthorized',
      message: `${noun} ${name} is waiting for an OAuth login: ${ready.message}`,
      action: `run ${commandHint(['mcpctl', 'login', name])}`,
    };
  const pinned = ctx.record?.condition(PINNED_CONDITION);
  if (ready?.status === 'True' && pinned?.status === 'False' && isPinReason(pinned.reason))
    return {
      name,
      reason: pinned.reason,
      message: `${noun} ${name} is ready, but some of what it offers is ${pinned.message}`,
      action:
        pinned.reason === 'ToolsChanged'
          ? `read what changed with ${commandHint(['mcpctl', 'describe', `${kind.resource}/${name}`])}; ${commandHint(['mcpctl', 'approve', name, '--tools'])} accepts it, ${commandHint(['mcpctl', 'reject', name, '--tools'])} keeps it out`
          : pinned.reason === 'ToolsRejected'
            ? `the held definitions were rejected; ${commandHint(['mcpctl', 'approve', name, '--tools'])} accepts them after all`
            : 'repair or remove the pins file the message names',
    };
  // A decision carried from another work tree of the repository says where it was made.
  const admittedNote = ctx.record?.condition('Admitted')?.message;
  const carried = admittedNote ? ` (${admittedNote})` : '';
  if (ready?.status === 'True' && ready.reason === 'Idle')
    return {
      name,
      reason: 'Idle',
      message: `${noun} ${name} is idle, no process runs: ${ready.message}${carried}`,
      action: `none: a call, a read, a subscription or a completion starts it (its entry's idleStopMs: 0, or the daemon's --idle-stop 0, keeps it running)`,
    };
  if (ready?.status === 'True') {
    return {
      name,
      reason: 'Available',
      message: `${noun} ${name} is ready: ${ready.message}${carried}`,
      action: 'none',
    };
  }
  if (ready?.status === 'False')
    return {
      name,
      reason: 'ConnectFailed',
      message: `${noun} ${name} failed to connect: ${ready.message}`,
      action: `fix the ${noun}'s ${kind.runs} in ${server.source} and save; mcpctl retries with back-off (${commandHint(['mcpctl', 'describe', kind.resource, name])} shows its stderr)`,
    };
  return {
    name,
    reason: 'Connecting',
    message: `${noun} ${name} is connecting`,
    action: `wait: ${commandHint(['mcpctl', 'wait', `${kind.resource}/${name}`, '--for=condition=Ready'])}`,
  };
}

function actionFor<S extends AdmissibleServer>(
  name: string,
  server: S,
  reason: Exclude<
    WhyAnswer['reason'],
    | 'Available'
    | 'Connecting'
    | 'Idle'
    | 'Unknown'
    | 'Removed'
    | 'ConnectFailed'
    | 'MissingEnv'
    | 'InvalidConfig'
    | 'CrashLoopBackOff'
    | 'Unauthorized'
    | 'ToolsChanged'
    | 'ToolsRejected'
    | 'PinsUnreadable'
  >,
  ctx: WhyContext<S>,
  kind: WhyKind<S>,
): string {
  const ref = kind.ref(name);
  switch (reason) {
    case 'PendingApproval':
      return `run ${commandHint(['mcpctl', 'approve', ref])} (or ${commandHint(['mcpctl', 'approve', ref, '--session'])} for this session only)`;
    case 'Rejected':
      return `edit the ${kind.noun}'s config in ${server.source} to be asked again, or run ${commandHint(['mcpctl', 'approve', ref])}`;
    case 'NotAllowed': {
      const inCeiling = ctx.ceiling === undefined || namePatternTest(ctx.ceiling)(name);
      if (!inCeiling)
        return `the daemon was started with ${kind.ceilingFlag}=${(ctx.ceiling ?? []).join(',')}; restart it with ${name} in that list`;
      return `add ${quoteName(name)} to mcp.allowed in your settings (now ${JSON.stringify(ctx.settingsAllowed ?? [])})`;
    }
    case 'Excluded': {
      // A glob that matches it is what to change: taking the name out would not be enough.
      const globs = (ctx.settingsExcluded ?? []).filter(
        (e) => isNamePattern(e) && matchesNamePattern(name, e),
      );
      if (globs.length === 0) return `remove ${quoteName(name)} from mcp.excluded in your settings`;
      return `mcp.excluded in your settings matches ${quoteName(name)} by ${globs.map(quoteName).join(', ')}: narrow or remove ${globs.length === 1 ? 'that entry' : 'those entries'}`;
    }
    case 'Disabled':
      return `set "disabled": false (or remove it) for ${name} in ${server.source}`;
    case 'UntrustedFolder':
      return `trust the workspace ${ctx.workspace} in ~/.qwen/trustedFolders.json ("TRUST_FOLDER"), or turn off security.folderTrust.enabled`;
  }
}
