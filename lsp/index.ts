/** The language-server client: one connection per server process, and the questions it answers. */
export * from './answer-limits.js';
export * from './connection.js';
export * from './documents.js';
export * from './diagnostics.js';
export * from './errors.js';
export * from './positions.js';
export * from './requests.js';
export * from './server-process.js';
export * from './workspace-files.js';
