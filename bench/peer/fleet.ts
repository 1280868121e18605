/**
 * The fixture servers a peer run puts behind a system, and the config file that lists them.
 *
 * Both systems read the same shape (`{ "mcpServers": { name: { command, args } } }`), so the
 * bench writes byte-identical content to mcpctl's settings file and to mcp-hub's config file:
 * any difference in the figures comes from the systems, not from what they were given.
 *
 * Every server offers `echo`; the one the bench edits also offers `v<version>`, so each edit
 * changes its args (a restart in both systems) and makes a tool name appear that was never
 * listed before. Every server writes its pid to a file of its own at start, which is how the
 * bench tells a kept process from a restarted one without asking either system.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { running } from '../processes.js';

/**
 * The built fixture, next to this build (dist/ or another --outDir) as bench/peer is: the
 * SDK-free fast one by default (a reload then measures the systems, not module loading),
 * the SDK one with PEER_FIXTURE=sdk.
 */
export const FIXTURE_KIND = process.env.PEER_FIXTURE === 'sdk' ? 'sdk' : 'fast';
export const FIXTURE = fileURLToPath(
  new URL(
    FIXTURE_KIND === 'sdk'
      ? '../../e2e/fixtures/stdio-server.js'
      : '../../e2e/fixtures/fast-server.js',
    import.meta.url,
  ),
);

/** The tool every server offers; its absence from a listing is a gap. */
export const BASE_TOOL = 'echo';
/** The server that crashes 1.5 s after each start (issue 9). */
export const CRASHER = 'crasher';
export const CRASH_AFTER_MS = 1500;

interface ServerEntry {
  readonly command: string;
  readonly args: readonly string[];
}

export interface Fleet {
  readonly names: readonly string[];
  /** The server whose args every edit changes (a middle one: not first or last in the file). */
  readonly edited: string;
  readonly pidDir: string;
  /** The tool the edited server offers at `version` besides BASE_TOOL. */
  versionTool(version: number): string;
  /** The config with the edited server at `version`, and the crasher when asked for. */
  config(version: number, withCrasher?: boolean): { mcpServers: Record<string, ServerEntry> };
  /** The pid a server wrote at its last start, if it has started. */
  pid(name: string): number | undefined;
  /** Pids of `names` now (undefined: no pid file yet). */
  pids(names: readonly string[]): Map<string, number | undefined>;
}

export function fleet(n: number, root: string): Fleet {
  const width = String(n - 1).length;
  const names = Array.from({ length: n }, (_, i) => `s${String(i).padStart(width, '0')}`);
  const edited = names[Math.floor(n / 2)] ?? 's0';
  const pidDir = join(root, 'pids');
  mkdirSync(pidDir, { recursive: true });
  const pidFile = (name: string) => join(pidDir, `${name}.pid`);
  const entry = (name: string, tools: string, extra: readonly string[] = []): ServerEntry => ({
    command: process.execPath,
    args: [FIXTURE, `--tools=${tools}`, `--pid-file=${pidFile(name)}`, ...extra],
  });
  const versionTool = (version: number) => `v${version}`;
  const pid = (name: string): number | undefined => {
    try {
      const n = Number(readFileSync(pidFile(name), 'utf8').trim());
      return Number.isSafeInteger(n) && n > 0 ? n : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    names,
    edited,
    pidDir,
    versionTool,
    config(version, withCrasher = false) {
      const mcpServers: Record<string, ServerEntry> = {};
      for (const name of names)
        mcpServers[name] =
          name === edited
            ? entry(name, `${BASE_TOOL},${versionTool(version)}`)
            : entry(name, BASE_TOOL);
      if (withCrasher)
        mcpServers[CRASHER] = entry(CRASHER, BASE_TOOL, [`--exit-after=${CRASH_AFTER_MS}`]);
      return { mcpServers };
    },
    pid,
    pids(list) {
      return new Map(list.map((name) => [name, pid(name)]));
    },
  };
}

/** How an editor saves: pretty JSON with a final newline, written in place. */
export function writePretty(file: string, content: unknown): void {
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
}

/** The same content in another layout (4-space indent, blank line at the end): format only. */
export function writeReformatted(file: string, content: unknown): void {
  writeFileSync(file, `${JSON.stringify(content, null, 4)}\n\n`);
}

/**
 * Servers among `before` whose process is not the one that was there: the pid file names
 * another process, or the recorded one is no longer running.
 */
export function restarted(f: Fleet, before: ReadonlyMap<string, number | undefined>): string[] {
  const out: string[] = [];
  for (const [name, pid] of before) {
    const now = f.pid(name);
    if (pid === undefined || now !== pid || !running(pid)) out.push(name);
  }
  return out;
}
