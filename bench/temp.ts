/**
 * A temporary home and workspace per figure, with the file paths a session reads. Everything a
 * figure starts carries the root's path in its command line, so leftovers can be found.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface BenchDir {
  readonly root: string;
  readonly home: string;
  readonly workspace: string;
  readonly userSettings: string;
  readonly systemSettings: string;
  /** Writes JSON (pretty, as an editor would) or raw text, creating folders. */
  write(file: string, content: unknown): void;
  remove(): void;
}

export function benchDir(prefix: string): BenchDir {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `mcpctl-bench-${prefix}-`)));
  const home = join(root, 'home');
  const workspace = join(root, 'ws');
  mkdirSync(join(home, '.qwen'), { recursive: true });
  mkdirSync(workspace, { recursive: true });
  return {
    root,
    home,
    workspace,
    userSettings: join(home, '.qwen', 'settings.json'),
    // Never created: the machine's /etc/qwen-code/settings.json must not leak into a figure.
    systemSettings: join(root, 'no-system-settings.json'),
    write(file, content) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
