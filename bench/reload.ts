/**
 * Figure 1, reload latency: a stdio fixture server, its args edited in the user settings file;
 * the time from the write to Ready on the new connectionId, minus the settle rule's quiet period
 * (the one wait that is there on purpose), against a raw
 * SDK connect (spawn + initialize + tools/list) of the same server in the same run.
 *
 * Raw connects and edits alternate, so load from elsewhere on the machine falls on both alike;
 * the figures are medians. The reload path is the real one at its defaults: the file watcher,
 * the settle rule, the informer, the queue, the reconciler and the pool's own stdio transport.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectionIdOf, type McpServerConfig } from '../api/index.js';
import { DEFAULT_SETTLE_MS } from '../informers/index.js';
import { createPool } from '../pool/index.js';
import { fixtureConfig } from '../pool/testing/fixtures.js';
import { running } from './processes.js';
import { benchSession, whenReadyOn } from './session-kit.js';
import { median, round } from './stats.js';
import { benchDir } from './temp.js';

export interface ReloadFigure {
  readonly rawConnectMs: number;
  readonly reloadMs: number;
  /** The quiet period subtracted from each write→Ready time. */
  readonly settleMs: number;
  readonly overheadRatio: number;
}

export interface ReloadDetail {
  readonly raw: readonly number[];
  readonly reload: readonly number[];
}

/**
 * One raw SDK connect of `config`: spawn, initialize, tools/list; then closed. The server gets
 * the environment the pool gives servers (the daemon's own, plus the config's `env`), not the
 * SDK's trimmed default: what the environment costs at start-up (NODE_EXTRA_CA_CERTS makes
 * node load a certificate bundle, for one) is the server's start, not mcpctl's overhead.
 */
async function rawConnect(config: McpServerConfig): Promise<number> {
  const client = new Client({ name: 'mcpctl-bench', version: '0.0.0' }, { capabilities: {} });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  const transport = new StdioClientTransport({
    command: config.command ?? process.execPath,
    args: config.args ?? [],
    env: { ...env, ...config.env },
    stderr: 'ignore',
  });
  const started = performance.now();
  await client.connect(transport);
  await client.listTools();
  const took = performance.now() - started;
  await client.close();
  return took;
}

async function waitGone(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + 10_000;
  while (running(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

export async function reloadFigure(
  edits = 9,
): Promise<{ figure: ReloadFigure; detail: ReloadDetail }> {
  const dir = benchDir('reload');
  const config = (i: number): McpServerConfig =>
    // `--add-tool-name` changes nothing the server does (without --add-tool-after): only args.
    fixtureConfig(['--tools=a,b', `--add-tool-name=edit${i}`, `--pid-file=${dir.root}/fx.pid`]);
  dir.write(dir.userSettings, { mcpServers: { fx: config(0) } });
  const pool = createPool({ drainDelayMs: 0, graceMs: 1000 });
  const session = await benchSession(dir, pool);
  const raw: number[] = [];
  const reload: number[] = [];
  try {
    await whenReadyOn(session, 'fx', connectionIdOf('fx', config(0), session.workspace));
    for (let i = 1; i <= edits; i++) {
      raw.push(await rawConnect(config(i)));
      const next = config(i);
      const ready = whenReadyOn(session, 'fx', connectionIdOf('fx', next, session.workspace));
      const previousPid = session.kind('McpServer').get('fx')?.status.pid;
      const written = performance.now();
      dir.write(dir.userSettings, { mcpServers: { fx: next } });
      await ready;
      reload.push(performance.now() - written - DEFAULT_SETTLE_MS);
      await session.settled();
      // The old process's exit must not weigh on the next measurement.
      await waitGone(previousPid);
    }
  } finally {
    await session.close();
    await pool.close();
    dir.remove();
  }
  const rawConnectMs = median(raw);
  const reloadMs = median(reload);
  return {
    figure: {
      rawConnectMs: round(rawConnectMs, 1),
      reloadMs: round(reloadMs, 1),
      settleMs: DEFAULT_SETTLE_MS,
      overheadRatio: round(reloadMs / rawConnectMs, 2),
    },
    detail: { raw: raw.map((x) => round(x, 1)), reload: reload.map((x) => round(x, 1)) },
  };
}
