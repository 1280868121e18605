/**
 * The language servers the tests run: the real ones installed as dev dependencies, and the
 * scriptable fake (fake-server.ts), as LspServerOptions for a workspace.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { LspServerOptions } from '../connection.js';

/** The repository root (dist/lsp/testing/ → three folders up). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const modules = (...parts: string[]): string => path.join(ROOT, 'node_modules', ...parts);

export function typescriptServer(
  workspaceFolder: string,
  more: Partial<LspServerOptions> = {},
): LspServerOptions {
  return {
    name: 'typescript',
    command: process.execPath,
    args: [modules('typescript-language-server', 'lib', 'cli.mjs'), '--stdio'],
    workspaceFolder,
    extensionToLanguage: { '.ts': 'typescript', '.tsx': 'typescriptreact' },
    // TypeScript 6.0 (`typescript-6`, a dev dependency; the build's compiler stays 5.9), wherever
    // the workspace is (a temp dir has none). Only `tsserver.path`, as the README's example: its
    // syntax server answers while the project loads, and the client must wait that out.
    initializationOptions: { tsserver: { path: modules('typescript-6', 'lib') } },
    startupTimeoutMs: 30_000,
    ...more,
  };
}

export function bashServer(
  workspaceFolder: string,
  more: Partial<LspServerOptions> = {},
): LspServerOptions {
  return {
    name: 'bash',
    command: process.execPath,
    args: [modules('bash-language-server', 'out', 'cli.js'), 'start'],
    workspaceFolder,
    extensionToLanguage: { '.sh': 'shellscript', '.bash': 'shellscript' },
    startupTimeoutMs: 30_000,
    ...more,
  };
}

export type FakeMode = 'normal' | 'garbage' | 'silent' | 'crash' | 'endless-header' | 'stubborn';

export function fakeServer(
  workspaceFolder: string,
  mode: FakeMode,
  more: Partial<LspServerOptions> = {},
): LspServerOptions {
  return {
    name: `fake-${mode}`,
    command: process.execPath,
    args: [fileURLToPath(new URL('./fake-server.js', import.meta.url)), mode],
    workspaceFolder,
    extensionToLanguage: { '.txt': 'plaintext' },
    startupTimeoutMs: 10_000,
    shutdownTimeoutMs: 1_000,
    killGraceMs: 300,
    ...more,
  };
}
