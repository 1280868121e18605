/**
 * The approval store (DESIGN §4 rules 6–10): persisted, hash-bound decisions per project root,
 * approve-for-session in memory, and the lookup the gating and admission code use.
 */
export * from './file-format.js';
export * from './errors.js';
export * from './location.js';
export * from './project-key.js';
export * from './store.js';
export * from './session-approvals.js';
export * from './lookup.js';
export * from './subject.js';
export * from './kinds.js';
export * from './pin-file.js';
export * from './pin-store.js';
