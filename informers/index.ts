/**
 * The informer layer: config files as watched sources, assembled into each session's desired
 * state, with a stream of affected server names. It connects nothing (DESIGN §2).
 */
export * from './types.js';
export { createSessionStore, sessionFiles, DEFAULT_SYSTEM_SETTINGS_PATH } from './session-store.js';
export type { SessionFiles, SessionStoreOptions } from './session-store.js';
export { createSharedSources } from './shared-sources.js';
export type { SharedSources, SharedSourcesOptions, SourceLease } from './shared-sources.js';
export {
  createFileSource,
  evaluateRead,
  isNotableChange,
  DEFAULT_DEBOUNCE_MS,
  DEFAULT_SETTLE_MS,
  settleMsFor,
  MIN_DEBOUNCE_MS,
} from './file-source.js';
export type { FileSnapshot, FileSource, FileSourceOptions, Validated } from './file-source.js';
export { watchPath } from './watch-path.js';
export { createDebouncer } from './debounce.js';
export type { Debouncer } from './debounce.js';
export type { PathWatcher } from './watch-path.js';
export { parseJsonc, locateIssue, formatSourceError, LineIndex } from './parse.js';
export type { ParsedText } from './parse.js';
export {
  SETTINGS_SCHEMA,
  flattenSchema,
  isRestartRequiredKey,
  changedKeys,
  isHotChange,
} from './restart-gate.js';
export type { SettingDefinition, SettingsSchema } from './restart-gate.js';
export {
  TRUST_LEVELS,
  validateTrustRules,
  resolveTrust,
  isWorkspaceTrusted,
  isWithin,
} from './trust.js';
export type { TrustLevel, TrustRule, TrustDecision, TrustRulesValidation } from './trust.js';
export {
  validateSettingsDocument,
  validateMcpJsonDocument,
  validateLspJsonDocument,
  SETTINGS_KIND,
  WORKSPACE_SETTINGS_KIND,
  GEMINI_SETTINGS_KIND,
  MCP_JSON_KIND,
  SERVER_FILE_KIND,
  PROJECT_MCP_JSON_KIND,
  LSP_JSON_KIND,
  PROJECT_LSP_JSON_KIND,
  TRUSTED_FOLDERS_KIND,
  MAX_GATED_SERVERS_PER_FILE,
} from './source-kinds.js';
export type { KindOptions } from './source-kinds.js';
export {
  assembleDesiredState,
  mergeMcpSettings,
  folderTrustEnabled,
  NO_LSP_APPROVALS,
} from './desired-state.js';
export type { AssembleInput, SessionSnapshots } from './desired-state.js';
export {
  affectedNames,
  affectedNamesByKind,
  gatingMovedNames,
  specChangedNames,
  sourceErrorsChanged,
} from './affected-names.js';
