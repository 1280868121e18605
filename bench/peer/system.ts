/**
 * What the peer scenario needs from a system under test (mcp-hub or mcpctl), and the private
 * folder each run of one gets.
 *
 * Every process a run starts carries that folder's path in its command line (pid files,
 * config, socket), so leftovers are found by path, and nothing outside the run is touched.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fleet } from './fleet.js';
import type { ToolProbe } from './probe.js';

/**
 * Prefix of every run folder. Not the main bench's `mcpctl-bench-`: its end-of-run sweep kills
 * whatever mentions that, and the two benches may run at the same time.
 */
export const RUN_PREFIX = 'mcpctl-peer-';

/**
 * The environment every system of a run (and so every server it starts) gets: this process's,
 * without NODE_EXTRA_CA_CERTS. A node that must load a CA bundle at start takes 150–200 ms more
 * on a machine that sets it, which would turn "fast-starting servers" into slow ones for both
 * systems alike; no fixture talks TLS.
 */
export function benchEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

export interface RunDir {
  readonly root: string;
  /** HOME of everything the run starts: no user file of the machine leaks in. */
  readonly home: string;
  readonly workspace: string;
  remove(): void;
}

export function runDir(label: string): RunDir {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `${RUN_PREFIX}${label}-`)));
  const home = join(root, 'home');
  const workspace = join(root, 'ws');
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  return {
    root,
    home,
    workspace,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** What a system says about one server. */
export interface ReportedStatus {
  /** True when the system presents the server as connected / Ready. */
  readonly connected: boolean;
  /** Its own words, for the report (`status "connected"`, `Ready=False CrashLoopBackOff`). */
  readonly text: string;
}

export interface SystemUnderTest {
  /** The file the bench edits; the system watches it. */
  readonly configFile: string;
  /** An MCP client connected to the system, every configured server's tools listed. */
  readonly probe: ToolProbe;
  /** The system's own status report for a server (its API or CLI, not the MCP listing). */
  status(server: string): Promise<ReportedStatus>;
  /** Ends the client, the system and its servers. */
  close(): Promise<void>;
}

export interface SystemKind {
  /** Key in results.json (`mcpHub`, `mcpctl200`, …). */
  readonly key: string;
  /** For the table. */
  readonly label: string;
  /**
   * Writes `initial` to the system's config file, starts the system on it, connects a client
   * and returns once every server's tools are listed.
   */
  start(f: Fleet, dir: RunDir, initial: unknown): Promise<SystemUnderTest>;
}

/** `server__tool`: the name both systems give a proxied tool (for names like ours, [a-z0-9]). */
export function qualified(server: string, tool: string): string {
  return `${server}__${tool}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
