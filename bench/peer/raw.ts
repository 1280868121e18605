/**
 * The floor: a raw SDK connect of one fixture server (spawn + initialize + tools/list), the
 * least any system can take to make a restarted server's tools visible.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { running } from '../processes.js';
import { median } from '../stats.js';
import { BASE_TOOL, FIXTURE } from './fleet.js';
import { benchEnv, sleep } from './system.js';

/** One connect, closed again before it returns (the process has ended). */
export async function rawConnectOnce(): Promise<number> {
  const client = new Client({ name: 'mcpctl-peer-bench', version: '0.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [FIXTURE, `--tools=${BASE_TOOL},v0`],
    env: benchEnv(),
    stderr: 'ignore',
  });
  const started = performance.now();
  await client.connect(transport);
  await client.listTools();
  const took = performance.now() - started;
  const pid = transport.pid;
  await client.close();
  // Nothing but this process marks it as the bench's: make sure it has ended before going on.
  const deadline = performance.now() + 2000;
  while (pid !== null && running(pid)) {
    if (performance.now() > deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }
    await sleep(10);
  }
  return took;
}

/** Median of `times` connects, one after another; every process is closed again. */
export async function rawConnectMs(times = 7): Promise<{ median: number; all: number[] }> {
  const all: number[] = [];
  for (let i = 0; i < times; i++) all.push(await rawConnectOnce());
  return { median: median(all), all };
}
