/** The API of mcpctl: config schema, identities, equality, merging, gating, McpServer. */
export * from './server-config.js';
export * from './lsp-config.js';
export * from './schema.js';
export * from './transport.js';
export * from './identity.js';
export * from './approval-hash.js';
export * from './equality.js';
export * from './scope.js';
export * from './assemble.js';
export * from './gating.js';
export * from './object.js';
export * from './redact.js';
export * from './env-expansion.js';
export * from './session-env.js';
export * from './oauth.js';
export * from './disclosure.js';
export * from './limits.js';
