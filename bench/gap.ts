/**
 * Figures 3 and 4, tool gaps: 20 servers on in-memory transports (answers arriving on a later
 * event-loop turn, as over a pipe: io-connector.ts), one of them (`edited`)
 * changed 50 times (a new arg each time, so a new connectionId). Three runs on the same edits:
 *
 * - mcpctl, RollingUpdate (the default): figure 3's mcpctl side (the other 19) and figure 4's
 *   RollingUpdate side (the edited one);
 * - mcpctl with `updateStrategy: "Recreate"` on the edited server: figure 4's Recreate side;
 * - restart-all (restart-all.ts): figure 3's baseline.
 *
 * Each edit is written to the settings file and applied with a full re-read (session.reload();
 * store.resync() for the baseline), which reconciles all 20 servers, not only the changed one:
 * the strictest case for the 19. All runs use the same pool type with no drain delay, so a
 * released connection really closes, as the original restart did.
 *
 * In-memory servers connect in about a millisecond; real servers take hundreds (figure 1's raw
 * connect). The baseline's gap therefore is a lower bound of what it costs with real servers;
 * mcpctl's zero does not depend on connect speed.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { connectionIdOf, type McpServerConfig } from '../api/index.js';
import { createSessionStore } from '../informers/index.js';
import { createPool } from '../pool/index.js';
import type { Pool } from '../pool/types.js';
import { GapMeter, type GapReading } from './gap-meter.js';
import { ioConnector } from './io-connector.js';
import { RestartAll } from './restart-all.js';
import { readyOn, benchSession } from './session-kit.js';
import { round } from './stats.js';
import { benchDir, type BenchDir } from './temp.js';

export const GAP_SERVERS = 20;
export const GAP_EDITS = 50;
const EDITED = 'edited';
const OTHERS = Array.from({ length: GAP_SERVERS - 1 }, (_, i) => `keep${i}`);

type Strategy = 'RollingUpdate' | 'Recreate';

function settings(
  version: number,
  strategy: Strategy,
): { mcpServers: Record<string, McpServerConfig> } {
  const mcpServers: Record<string, McpServerConfig> = {
    [EDITED]: {
      command: 'mem',
      args: [EDITED, `v${version}`],
      ...(strategy === 'Recreate' ? { updateStrategy: 'Recreate' as const } : {}),
    },
  };
  for (const name of OTHERS) mcpServers[name] = { command: 'mem', args: [name] };
  return { mcpServers };
}

function memPool(): Pool {
  const connector = ioConnector(() => {
    const server = new McpServer({ name: 'gap', version: '1.0.0' });
    for (const t of ['t1', 't2', 't3']) server.registerTool(t, {}, () => ({ content: [] }));
    return server;
  });
  return createPool({ connector, drainDelayMs: 0 });
}

async function withDir<T>(prefix: string, run: (dir: BenchDir) => Promise<T>): Promise<T> {
  const dir = benchDir(prefix);
  try {
    return await run(dir);
  } finally {
    dir.remove();
  }
}

function mcpctlRun(strategy: Strategy): Promise<GapReading> {
  return withDir(`gap-${strategy}`, async (dir) => {
    dir.write(dir.userSettings, settings(0, strategy));
    const pool = memPool();
    const session = await benchSession(dir, pool, { debounceMs: 600_000 });
    try {
      await session.settled();
      const meter = new GapMeter(session.registry, OTHERS, EDITED);
      meter.start();
      for (let v = 1; v <= GAP_EDITS; v++) {
        dir.write(dir.userSettings, settings(v, strategy));
        await session.reload();
      }
      const reading = meter.stop();
      const final = settings(GAP_EDITS, strategy).mcpServers[EDITED] ?? {};
      if (!readyOn(session, EDITED, connectionIdOf(EDITED, final, session.workspace)))
        throw new Error(`${strategy}: the last edit is not live`);
      return reading;
    } finally {
      await session.close();
      await pool.close();
    }
  });
}

function restartAllRun(): Promise<GapReading> {
  return withDir('gap-restart-all', async (dir) => {
    dir.write(dir.userSettings, settings(0, 'RollingUpdate'));
    const pool = memPool();
    const store = createSessionStore({
      workspace: dir.workspace,
      home: dir.home,
      systemSettingsPath: dir.systemSettings,
      approvals: () => 'approved',
      debounceMs: 600_000,
    });
    const baseline = new RestartAll(pool, 'restart-all', dir.workspace);
    try {
      await store.start();
      await baseline.restart(store.current());
      const meter = new GapMeter(baseline.registry, OTHERS, EDITED);
      meter.start();
      for (let v = 1; v <= GAP_EDITS; v++) {
        dir.write(dir.userSettings, settings(v, 'RollingUpdate'));
        await store.resync();
        await baseline.restart(store.current());
      }
      return meter.stop();
    } finally {
      baseline.close();
      await store.close();
      await pool.close();
    }
  });
}

export interface GapFigures {
  readonly gapUnchanged: { readonly mcpctlMs: number; readonly restartAllMs: number };
  readonly gapChanged: { readonly rollingUpdateMs: number; readonly recreateMs: number };
}

export interface GapDetail {
  readonly rolling: GapReading;
  readonly recreate: GapReading;
  readonly restartAll: GapReading;
}

export async function gapFigures(): Promise<{ figures: GapFigures; detail: GapDetail }> {
  const rolling = await mcpctlRun('RollingUpdate');
  const recreate = await mcpctlRun('Recreate');
  const restartAll = await restartAllRun();
  return {
    figures: {
      gapUnchanged: {
        mcpctlMs: round(rolling.watchedMs),
        restartAllMs: round(restartAll.watchedMs),
      },
      gapChanged: {
        rollingUpdateMs: round(rolling.changedMs),
        recreateMs: round(recreate.changedMs),
      },
    },
    detail: { rolling, recreate, restartAll },
  };
}
