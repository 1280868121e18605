/**
 * The McpServer object and Kubernetes-style conditions (DESIGN §6). "Object", not "resource":
 * in this code a resource is always an MCP resource (gateway/resources.ts).
 *
 * Types come from @kubernetes/client-node by `import type` only; no runtime code of that
 * package is ever loaded (a test checks the emitted JavaScript).
 */
import type { V1Condition, V1ObjectMeta } from '@kubernetes/client-node';
import type { HeldDefinition } from './definition.js';
import type { LanguageServerKindName, McpServerKindName } from './kind-names.js';
import type { LanguageServerConfig } from './lsp-config.js';
import type { McpServerConfig } from './server-config.js';

export const API_VERSION = 'mcpctl.dev/v1alpha1';
export const ANNOTATION_SCOPE = 'mcpctl.dev/scope';
export const ANNOTATION_SOURCE = 'mcpctl.dev/source';
/** The session an object was listed from (`get … -A`: every session's objects in one list). */
export const ANNOTATION_SESSION = 'mcpctl.dev/session';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A V1Condition whose time is an RFC 3339 string, as it travels in JSON. */
export type Condition = Omit<
  Pick<V1Condition, 'type' | 'status' | 'reason' | 'message' | 'observedGeneration'>,
  'status'
> & {
  status: ConditionStatus;
  lastTransitionTime: string;
};

export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

export type AdmittedReason =
  | 'NotGated'
  | 'Approved'
  | 'ApprovedForSession'
  | 'Disabled'
  | 'Excluded'
  | 'NotAllowed'
  | 'PendingApproval'
  | 'Rejected'
  | 'UntrustedFolder';

export type ReadyReason =
  | 'Connected'
  | 'Idle'
  | 'Connecting'
  | 'NotAdmitted'
  | 'ConnectFailed'
  | 'CrashLoopBackOff'
  | 'MissingEnv'
  | 'InvalidConfig'
  | 'Unauthorized';

export type UpToDateReason = 'Current' | 'RollingOut' | 'RolloutFailed';

export type ObjectMeta = Pick<V1ObjectMeta, 'name' | 'generation' | 'annotations'> & {
  name: string;
  generation: number;
  creationTimestamp: string;
};

/** What the status of either kind of server says. */
export interface ServerStatusBase {
  observedGeneration?: number;
  connectionId?: string;
  approvalHash?: string;
  pid?: number;
  connectedAt?: string;
  restarts: number;
  conditions: Condition[];
}

export interface McpServerStatus extends ServerStatusBase {
  tools: string[];
  prompts: string[];
  /** Tools and prompts its pins hold from every agent (issue #35); absent when none. */
  held?: readonly HeldDefinition[];
  /** Shown to agents with their unshown characters escaped until accepted; absent when none. */
  escaped?: readonly HeldDefinition[];
}

export interface McpServer {
  apiVersion: typeof API_VERSION;
  kind: McpServerKindName;
  metadata: ObjectMeta;
  spec: McpServerConfig;
  status: McpServerStatus;
}

export interface McpServerList {
  apiVersion: typeof API_VERSION;
  kind: `${McpServerKindName}List`;
  items: McpServer[];
}

export interface LanguageServerStatus extends ServerStatusBase {
  /** The resolved workspace folder (absolute) the server was started on. */
  workspaceFolder?: string;
  /** The extensions it answers for, from `extensionToLanguage` (`.ts`, `.tsx`). */
  extensions: string[];
}

/** A language server of `.lsp.json` / `--lsp-config`: the second kind (DESIGN §1). */
export interface LanguageServer {
  apiVersion: typeof API_VERSION;
  kind: LanguageServerKindName;
  metadata: ObjectMeta;
  spec: LanguageServerConfig;
  status: LanguageServerStatus;
}

export interface LanguageServerList {
  apiVersion: typeof API_VERSION;
  kind: `${LanguageServerKindName}List`;
  items: LanguageServer[];
}

export interface SetConditionResult {
  readonly conditions: Condition[];
  /** True when anything (status, reason, message or observedGeneration) changed. */
  readonly changed: boolean;
}

/**
 * Sets one condition, Kubernetes style: `lastTransitionTime` moves only when `status` changes;
 * reason, message and observedGeneration are updated in place. Returns a new array.
 */
export function setCondition(
  conditions: readonly Condition[],
  next: ConditionInput,
  now: Date = new Date(),
): SetConditionResult {
  const index = conditions.findIndex((c) => c.type === next.type);
  const existing = index >= 0 ? conditions[index] : undefined;
  if (!existing) {
    return {
      conditions: [...conditions, { ...next, lastTransitionTime: now.toISOString() }],
      changed: true,
    };
  }
  const lastTransitionTime =
    existing.status === next.status ? existing.lastTransitionTime : now.toISOString();
  const updated: Condition = { ...next, lastTransitionTime };
  const changed =
    existing.status !== updated.status ||
    existing.reason !== updated.reason ||
    existing.message !== updated.message ||
    existing.observedGeneration !== updated.observedGeneration;
  const out = [...conditions];
  out[index] = updated;
  return { conditions: out, changed };
}

export function findCondition(
  conditions: readonly Condition[],
  type: string,
): Condition | undefined {
  return conditions.find((c) => c.type === type);
}
