/**
 * Save torture: every way an editor or a tool writes a settings file, against a live session
 * with real files and the default settle rule. For each: the applied desired set is only ever
 * the previous or the final content (never a partial, empty or intermediate one), the changed
 * server reconnects exactly once, and nothing else restarts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { configsOf } from '../api/index.js';
import { DEFAULT_SETTLE_MS } from '../informers/file-source.js';
import { createPool } from '../pool/index.js';
import { inMemoryConnector } from '../pool/testing/in-memory.js';
import type { Step } from '../informers/testing/save-writer.js';
import type { Session } from './session.js';
import { harness, type Harness } from './testing/harness.js';
import { until } from '../testing/until.js';

const WRITER = fileURLToPath(new URL('../informers/testing/save-writer.js', import.meta.url));

/** Runs the steps in a writer process; resolves with when each began (ms). */
function save(steps: Step[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, JSON.stringify(steps)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as number[])
        : reject(new Error(`writer exited ${code}`)),
    );
  });
}

function settings(version: string): string {
  return `${JSON.stringify(
    {
      ui: { theme: 'dark' },
      mcpServers: {
        keep1: { command: 'node', args: ['keep1'] },
        keep2: { command: 'node', args: ['keep2'] },
        edited: { command: 'node', args: [version] },
      },
    },
    null,
    2,
  )}\n`;
}

describe('save torture (live session, real files)', { timeout: 120_000 }, () => {
  let h: Harness;
  let session: Session;
  let version = 0;
  /** Every distinct desired server map the session applied, as canonical text. */
  const applied: string[] = [];
  const mem = inMemoryConnector((ticket) => {
    const server = new McpServer({ name: ticket.name, version: '1.0.0' });
    server.tool(`tool_${String(ticket.config.args?.[0])}`, () => ({ content: [] }));
    return server;
  });

  const stateOf = (v: number) =>
    JSON.stringify({
      keep1: { command: 'node', args: ['keep1'] },
      keep2: { command: 'node', args: ['keep2'] },
      edited: { command: 'node', args: [`v${v}`] },
    });

  before(async () => {
    h = await harness({ pool: createPool({ connector: mem.connector, drainDelayMs: 0 }) });
    h.write(h.files.user, settings('v0'));
    // The defaults: the settle rule with the 300 ms ceiling.
    session = await h.session({ debounceMs: 300 });
    session.on('change', () => {
      const now = JSON.stringify(configsOf(session.desired().kinds.McpServer.servers));
      if (applied[applied.length - 1] !== now) applied.push(now);
    });
    await until('v0 ready', () =>
      session.kind('McpServer').get('edited')?.status.tools.includes('tool_v0'),
    );
  });
  after(async () => {
    await h.close();
  });

  /**
   * Runs one save scenario from v(n) to v(n+1) and checks the three promises. `steps` gets the
   * file, a scratch path next to it, and the texts of intermediate versions and the final one.
   */
  async function scenario(
    steps: (file: string, scratch: string, text: (label: string) => string) => Step[],
    accept: (times: number[]) => boolean = () => true,
  ): Promise<void> {
    const from = version;
    const to = from + 1;
    const file = h.files.user;
    const scratch = path.join(path.dirname(file), 'scratch.json');
    const connectsBefore = mem.servers.length;
    const keepsBefore = mem.servers.filter((s) => s.ticket.name !== 'edited').length;
    applied.length = 0;
    applied.push(stateOf(from));
    const text = (label: string) => settings(label === 'final' ? `v${to}` : `v${from}-${label}`);
    const times = await save(steps(file, scratch, text));
    await until(`v${to} ready`, () =>
      session.kind('McpServer').get('edited')?.status.tools.includes(`tool_v${to}`),
    );
    await session.settled();
    if (existsSync(scratch)) rmSync(scratch);
    version = to;
    if (!accept(times)) return; // Not the scenario after all; the caller runs it again.
    assert.deepEqual(applied, [stateOf(from), stateOf(to)], 'only the previous and the final');
    const connects = mem.servers.slice(connectsBefore);
    assert.deepEqual(
      connects.map((s) => `${s.ticket.name}:${String(s.ticket.config.args?.[0])}`),
      [`edited:v${to}`],
      'the changed server reconnected exactly once',
    );
    assert.equal(mem.servers.filter((s) => s.ticket.name !== 'edited').length, keepsBefore);
  }

  it('atomic write and rename', async () => {
    await scenario((file, scratch, text) => [
      { write: scratch, text: text('final') },
      { rename: scratch, to: file },
    ]);
  });

  it('in-place writeFileSync', async () => {
    await scenario((file, _s, text) => [{ write: file, text: text('final') }]);
  });

  it('truncate, then write 50 ms later', async () => {
    await scenario((file, _s, text) => [
      { truncate: file },
      { sleep: 50 },
      { write: file, text: text('final') },
    ]);
  });

  it('a write in three chunks 20 ms apart', async () => {
    await scenario((file, _s, text) => {
      const whole = text('final');
      const third = Math.ceil(whole.length / 3);
      return [
        { write: file, text: whole.slice(0, third) },
        { sleep: 20 },
        { append: file, text: whole.slice(third, 2 * third) },
        { sleep: 20 },
        { append: file, text: whole.slice(2 * third) },
      ];
    });
  });

  it('five saves 30 ms apart', async () => {
    // The rule promises this only while every gap stays under the quiet period; a run whose
    // writer the machine stalled past it is not this scenario, so it is tried again.
    const inSpec = (times: number[]) =>
      times.every((t, i) => i === 0 || t - times[i - 1] < DEFAULT_SETTLE_MS - 5);
    for (let attempt = 1; ; attempt++) {
      let ok = true;
      await scenario(
        (file, _s, text) =>
          ['a', 'b', 'c', 'd', 'final'].flatMap((label, i) => [
            ...(i > 0 ? [{ sleep: 30 }] : []),
            { write: file, text: text(label) },
          ]),
        (times) => (ok = inSpec(times)),
      );
      if (ok) return;
      assert.ok(attempt < 10, 'the writer never kept its 30 ms gaps on this machine');
    }
  });

  it('a copy over the file', async () => {
    await scenario((file, scratch, text) => {
      writeFileSync(scratch, text('final'));
      return [{ copy: scratch, to: file }];
    });
  });

  it('delete, then re-create', async () => {
    await scenario((file, _s, text) => [
      { unlink: file },
      { sleep: 20 },
      { write: file, text: text('final') },
    ]);
  });
});
