/**
 * What the concurrency test and its child processes agree on: the config each child approves,
 * and the lines they exchange. Shared so the test checks exactly what the children wrote.
 */
import type { McpServerConfig } from '../../api/index.js';

export const READY = 'ready';
export const GO = 'go';
export const DONE = 'done';

export function childServerName(prefix: string, index: number): string {
  return `${prefix}-${index}`;
}

export function childServerConfig(name: string): McpServerConfig {
  return { command: 'node', args: [`${name}.js`], env: { SERVER: name } };
}
