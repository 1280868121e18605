/** The agents `mcpctl setup` knows, by the name the command takes. */
import { CLAUDE } from './claude.js';
import { CURSOR, VSCODE } from './editors.js';
import { GEMINI } from './gemini.js';
import { QWEN } from './qwen.js';
import type { AgentId, AgentSetup } from './types.js';

export const AGENTS: ReadonlyMap<AgentId, AgentSetup> = new Map(
  [CLAUDE, GEMINI, QWEN, VSCODE, CURSOR].map((a) => [a.id, a]),
);
