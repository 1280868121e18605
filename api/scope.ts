/** Where a server came from, and which of those places need the user's approval. */

export type Scope = 'system' | 'user' | 'workspace' | 'project' | 'cli' | 'session';

/** Lowest to highest precedence (DESIGN §4 rule 1): a later scope replaces an earlier entry. */
export const SCOPE_PRECEDENCE: readonly Scope[] = [
  'user',
  'project',
  'workspace',
  'system',
  'session',
  'cli',
];

const GATED: ReadonlySet<Scope> = new Set<Scope>(['project', 'workspace']);

/** Servers from these scopes need approval for their exact config before they may start. */
export function isGatedScope(scope: Scope): boolean {
  return GATED.has(scope);
}

export type ApprovalState = 'pending' | 'approved' | 'rejected';
