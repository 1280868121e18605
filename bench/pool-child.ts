/**
 * The daemon side of the pool figure, in a process of its own so that its RSS is the daemon's
 * alone: the real daemon core (controller/daemon.ts) with `sessions` sessions, one per
 * workspace, all seeing the same user settings (`servers` identical stdio servers).
 *
 * - pooled: the daemon as shipped — one pool shared by every session;
 * - unpooled: the same daemon, but each session gets a pool of its own (the daemon's session
 *   factory seam), which is what separate agent processes without a shared daemon amount to.
 *
 * Prints one JSON line when every session has every server Ready, then waits for a line on
 * stdin and shuts everything down (every server process ended) before it exits.
 *
 * Usage: node --expose-gc pool-child.js pooled|unpooled ROOT SESSIONS SERVERS
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Daemon } from '../controller/daemon.js';
import { createSession } from '../controller/session.js';
import { createPool } from '../pool/index.js';
import type { Pool } from '../pool/types.js';

const [mode, root, sessionsText, serversText] = process.argv.slice(2);
const sessions = Number(sessionsText);
const servers = Number(serversText);
if ((mode !== 'pooled' && mode !== 'unpooled') || !root || !(sessions > 0) || !(servers > 0)) {
  process.stderr.write('usage: pool-child.js pooled|unpooled ROOT SESSIONS SERVERS\n');
  process.exit(2);
}

const workspaces = Array.from({ length: sessions }, (_, i) => join(root, `ws${i}`));
for (const ws of workspaces) mkdirSync(ws, { recursive: true });
const privatePools: Pool[] = [];

const daemon = await Daemon.start({
  workspace: workspaces[0] ?? root,
  home: join(root, 'home'),
  systemSettingsPath: join(root, 'no-system-settings.json'),
  stateFile: join(root, 'children.json'),
  drainDelayMs: 0,
  env: {},
  ...(mode === 'unpooled'
    ? {
        createSession: (opts) => {
          const pool = createPool({ drainDelayMs: 0 });
          privatePools.push(pool);
          return createSession({ ...opts, pool });
        },
      }
    : {}),
});
const handles = await Promise.all(
  workspaces.slice(1).map((workspace) => daemon.open({ workspace })),
);
const all = [daemon.defaultSession, ...handles.map((h) => h.session)];
await Promise.all(all.map((s) => s.settled()));
const ready = all.map(
  (s) =>
    s
      .kind('McpServer')
      .list()
      .filter((r) => r.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'))
      .length,
);
(globalThis as { gc?: () => void }).gc?.();
process.stdout.write(
  `${JSON.stringify({ pid: process.pid, ready, rssMb: process.memoryUsage().rss / 2 ** 20 })}\n`,
);

// Wait for the parent to have counted, then end everything.
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => {
  lines.once('line', () => resolve());
  lines.once('close', () => resolve());
});
lines.close();
for (const h of handles) h.release();
await daemon.stop();
await Promise.all(privatePools.map((p) => p.close()));
process.exit(0);
