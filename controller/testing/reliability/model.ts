/**
 * The reference model of the model-based reliability test: what a session must do, computed
 * from the rules of DESIGN §4 alone.
 *
 * Why a separate model: the test must not ask the code under test who is admitted, or a bug in
 * admission would agree with itself. So merging (rule 1), normalisation (rule 2), gating and the
 * ceiling (rules 3, 4), trust, approvals bound to the config (rules 7–10) and the crash back-off
 * of DESIGN §5 are re-stated here in the plainest form. The only shared piece is api's
 * connectionIdOf, which the brief names as the definition of "the right connectionId".
 *
 * The model is a plain mutable value; `clone()` gives the next step its own copy.
 */
import { connectionIdOf, type McpServerConfig } from '../../../api/index.js';

/** Few names, so that scopes collide; `constructor` catches prototype-keyed lookups. */
export const NAMES = ['a', 'b', 'c', 'constructor'] as const;
export type Name = (typeof NAMES)[number];

/** The scopes a step may write a server into (system and session are out of the brief). */
export const SCOPES = ['user', 'workspace', 'project', 'cli'] as const;
export type ModelScope = (typeof SCOPES)[number];

/** Settings layers that carry an `mcp` section (`.mcp.json` and --mcp-config have none). */
export const LAYERS = ['user', 'workspace'] as const;
export type Layer = (typeof LAYERS)[number];

export type TrustRule = 'none' | 'TRUST_FOLDER' | 'DO_NOT_TRUST';

/**
 * Server configs a step can write. Chosen so that every kind of edit occurs: a connection
 * change (args, env), an edit that keeps both the connection and the approval (description),
 * one that keeps the connection but needs a new approval (a tool filter), the Claude shape of
 * v0 (same server after normalisation), and a disabled one.
 */
export const VARIANTS: readonly McpServerConfig[] = [
  { command: 'mem', args: ['v0'] },
  { command: 'mem', args: ['v1'] },
  { command: 'mem', args: ['v0'], description: 'same connection, same approval' },
  { command: 'mem', args: ['v0'], excludeTools: ['t2'] },
  { type: 'stdio', command: 'mem', args: ['v0'] },
  { command: 'mem', args: ['v1'], disabled: true },
  { command: 'mem', args: ['v2'], env: { K: 'v' } },
];

/** Every in-memory test server offers these tools (see world.ts). */
export const SERVER_TOOLS = ['t1', 't2'] as const;

const GATED: ReadonlySet<ModelScope> = new Set<ModelScope>(['project', 'workspace']);
/** Lowest to highest (rule 1: user < project < workspace < … < cli). */
const PRECEDENCE: readonly ModelScope[] = ['user', 'project', 'workspace', 'cli'];

export interface McpLists {
  allowed?: readonly Name[];
  excluded?: readonly Name[];
}

export interface StoredDecision {
  /** approvalKey() of the config decided on. */
  readonly key: string;
  readonly status: 'approved' | 'rejected';
}

export interface DesiredEntry {
  readonly name: Name;
  readonly scope: ModelScope;
  /** Normalised (rule 2). */
  readonly config: McpServerConfig;
}

export type Reason =
  | 'NotGated'
  | 'Approved'
  | 'ApprovedForSession'
  | 'Disabled'
  | 'Excluded'
  | 'NotAllowed'
  | 'PendingApproval'
  | 'Rejected'
  | 'UntrustedFolder';

export interface Verdict {
  readonly admitted: boolean;
  /** Acceptable Admitted reasons. Two only when both approvals hold (either may be shown). */
  readonly reasons: readonly Reason[];
}

/** Rule 2, for the shapes VARIANTS use: `type: "stdio"` is the Qwen shape without `type`. */
export function normalize(config: McpServerConfig): McpServerConfig {
  if (config.type !== 'stdio') return config;
  const rest: McpServerConfig = { ...config };
  delete rest.type;
  return rest;
}

/** Keys sorted recursively, arrays in order: equal text ⇔ equal config (DESIGN §1). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What an approval is bound to: the config minus scope, description and extensionName. Two
 * configs have the same approval hash exactly when their keys are equal, so the model needs
 * no hash of its own.
 */
export function approvalKey(config: McpServerConfig): string {
  const kept: Record<string, unknown> = { ...config };
  for (const key of ['scope', 'description', 'extensionName']) delete kept[key];
  return canonical(kept);
}

/** The tools a live server must show: SERVER_TOOLS through its include/exclude filters. */
export function expectedTools(config: McpServerConfig): string[] {
  return SERVER_TOOLS.filter(
    (t) =>
      !(config.excludeTools ?? []).includes(t) &&
      (config.includeTools === undefined || config.includeTools.includes(t)),
  );
}

export class Model {
  /** `--allowed-mcp-server-names`, fixed at session start. */
  readonly ceiling: readonly Name[] | undefined;
  servers: Record<ModelScope, Map<Name, number>>;
  mcp: Record<Layer, McpLists>;
  /** `security.folderTrust.enabled` in the user settings. */
  trustEnabled = false;
  /**
   * The trustedFolders.json rule for the workspace. Trusting at first, so that turning folder
   * trust on does not block every name for the rest of a sequence (a rule step still can).
   */
  trustRule: TrustRule = 'TRUST_FOLDER';
  /** Persisted decisions for this workspace, by name (rule 6; never deleted, rule 9). */
  approvals = new Map<Name, StoredDecision>();
  /** Approve-for-session: approval keys per name (rule 10). */
  sessionApprovals = new Map<Name, Set<string>>();
  /** Servers that crashed and wait for their back-off: name → the connectionId that crashed. */
  backoff = new Map<Name, string>();

  /** The session's workspace root: where a stdio server runs is part of its connectionId. */
  readonly workspace: string;

  constructor(ceiling: readonly Name[] | undefined, workspace: string) {
    this.ceiling = ceiling;
    this.workspace = workspace;
    this.servers = { user: new Map(), workspace: new Map(), project: new Map(), cli: new Map() };
    this.mcp = { user: {}, workspace: {} };
  }

  clone(): Model {
    const m = new Model(this.ceiling, this.workspace);
    for (const s of SCOPES) m.servers[s] = new Map(this.servers[s]);
    m.mcp = { user: { ...this.mcp.user }, workspace: { ...this.mcp.workspace } };
    m.trustEnabled = this.trustEnabled;
    m.trustRule = this.trustRule;
    m.approvals = new Map(this.approvals);
    m.sessionApprovals = new Map([...this.sessionApprovals].map(([k, v]) => [k, new Set(v)]));
    m.backoff = new Map(this.backoff);
    return m;
  }

  /** Folder trust: every workspace is trusted unless folder trust is on. */
  get trusted(): boolean {
    return !this.trustEnabled || this.trustRule === 'TRUST_FOLDER';
  }

  /** Rule 1: replace, never merge; workspace settings only in a trusted folder. */
  desired(): Map<Name, DesiredEntry> {
    const out = new Map<Name, DesiredEntry>();
    for (const scope of PRECEDENCE) {
      if (scope === 'workspace' && !this.trusted) continue;
      for (const [name, variant] of this.servers[scope]) {
        const config = VARIANTS[variant];
        if (config === undefined) throw new Error(`no variant ${variant}`);
        out.set(name, { name, scope, config: normalize(config) });
      }
    }
    return out;
  }

  /** The merged lists, as Qwen Code joins them: the user's, then the workspace's (trusted only). */
  lists(): McpLists {
    const ws = this.trusted ? this.mcp.workspace : {};
    const joined = (a: readonly Name[] | undefined, b: readonly Name[] | undefined) =>
      a === undefined && b === undefined ? undefined : [...new Set([...(a ?? []), ...(b ?? [])])];
    const allowed = joined(this.mcp.user.allowed, ws.allowed);
    const excluded = joined(this.mcp.user.excluded, ws.excluded);
    return {
      ...(allowed === undefined ? {} : { allowed }),
      ...(excluded === undefined ? {} : { excluded }),
    };
  }

  /** Rule 4: with a ceiling, settings narrow inside it; without, settings alone. */
  effectiveAllowed(): readonly Name[] | undefined {
    const allowed = this.lists().allowed;
    if (this.ceiling === undefined) return allowed;
    if (allowed === undefined) return this.ceiling;
    return this.ceiling.filter((n) => allowed.includes(n));
  }

  /** Admission of one name now; undefined when the name is not configured. */
  verdict(name: Name): Verdict | undefined {
    const entry = this.desired().get(name);
    if (!entry) return undefined;
    const refuse = (reason: Reason): Verdict => ({ admitted: false, reasons: [reason] });
    if (!this.trusted) return refuse('UntrustedFolder');
    if (entry.config.disabled === true) return refuse('Disabled');
    if ((this.lists().excluded ?? []).includes(name)) return refuse('Excluded');
    const allowed = this.effectiveAllowed();
    if (allowed !== undefined && !allowed.includes(name)) return refuse('NotAllowed');
    if (!GATED.has(entry.scope)) return { admitted: true, reasons: ['NotGated'] };
    const key = approvalKey(entry.config);
    const forSession = this.sessionApprovals.get(name)?.has(key) ?? false;
    const stored = this.approvals.get(name);
    const state = stored !== undefined && stored.key === key ? stored.status : 'pending';
    if (state === 'approved')
      return {
        admitted: true,
        reasons: forSession ? ['Approved', 'ApprovedForSession'] : ['Approved'],
      };
    if (forSession) return { admitted: true, reasons: ['ApprovedForSession'] };
    return refuse(state === 'rejected' ? 'Rejected' : 'PendingApproval');
  }

  /** The connectionId a name must be served by now, or undefined when it must be down. */
  expectedLive(name: Name): string | undefined {
    const entry = this.desired().get(name);
    if (!entry || this.verdict(name)?.admitted !== true || this.backoff.has(name)) return undefined;
    return connectionIdOf(name, entry.config, this.workspace);
  }

  /**
   * DESIGN §5 back-off after a step: a crashed server stays down until its window ends (a
   * `tick`), unless it left the config, stopped being admitted (the failure count resets) or
   * its connection changed (an edited config is tried at once).
   */
  settleBackoff(): void {
    for (const [name, crashedId] of [...this.backoff]) {
      const entry = this.desired().get(name);
      if (!entry || this.verdict(name)?.admitted !== true) this.backoff.delete(name);
      else if (connectionIdOf(name, entry.config, this.workspace) !== crashedId)
        this.backoff.delete(name);
    }
  }
}
