/**
 * Server processes, whatever they speak (DESIGN §5 "No orphans"): a process group of their own,
 * their descendants that left it, the end of all of them, and the record that lets the next
 * daemon reap what a hard-killed one left. Used by pool/ (MCP stdio servers) and lsp/
 * (language servers); imports nothing of ours but api/ types.
 */
export {
  GroupChild,
  describeExit,
  type EndTimings,
  type ExitInfo,
  type GroupChildOptions,
  type ProcessHooks,
} from './group-child.js';
export { groupAlive, pidAlive, signalGroup, waitFor } from './process-group.js';
export {
  DEFAULT_TREE_SCAN_MS,
  sharedTreeScanner,
  TreeScanner,
  type ProcessIdentity,
} from './process-tree.js';
export {
  processStartTime,
  ProcessRecorder,
  reapOrphans,
  recordingHooks,
  type ProcessRecord,
  type ReapOptions,
  type ReapReport,
  type RecordInfo,
  type ServerKind,
} from './orphans.js';
export { markedProcesses, RUN_MARK_ENV, type MarkedProcess, type RunMark } from './run-mark.js';
export { LineTail, type LinesSince } from './line-tail.js';
