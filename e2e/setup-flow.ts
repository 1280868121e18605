/**
 * What the `mcpctl setup AGENT` e2e tests share: the files' bytes before and after, an agent
 * that starts what setup wrote into its config, and the one flow every agent goes through
 * (dry run, setup, reach through mcpctl, second run, undo).
 *
 * Guarantees: every process the flow starts is ended in it (the agent's serve, and the daemon
 * serve started, by `mcpctl stop`); waits poll (testing/until.ts), none sleeps.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { McpServerList } from '../api/index.js';
import { isReady, untilTools, type TestEnv } from './harness.js';

/** Each file's bytes, or null when it does not exist. */
export function snapshot(files: readonly string[]): Map<string, string | null> {
  return new Map(files.map((f) => [f, existsSync(f) ? readFileSync(f).toString('latin1') : null]));
}

export interface FlowCase {
  readonly agent: 'claude' | 'gemini' | 'qwen' | 'vscode' | 'cursor';
  /** The agent's files (and mcpctl's server file): compared byte for byte. */
  readonly files: readonly string[];
  /** Secret values written in the agent's config: never printed. */
  readonly secrets: readonly string[];
  /** The servers the agent itself would start now, read from its files as the agent reads them. */
  agentStarts(): string[];
  /** The mcpctl entry in the agent's config. */
  entry(): { command: string; args: string[] };
  /** The servers an agent must reach through mcpctl, once each. */
  readonly reach: readonly string[];
  /** Project servers to approve in mcpctl first. */
  readonly approve: readonly string[];
  /** Checked once the agent's mcpctl is up, before `approve` (e.g. the project servers pending). */
  beforeApprove?(): Promise<void>;
  /** Servers that must not be served (excluded before, still excluded). */
  readonly never: readonly string[];
}

function noSecret(c: FlowCase, text: string, what: string): void {
  for (const s of c.secrets) assert.ok(!text.includes(s), `${what} printed a secret`);
}

export async function setupFlow(
  env: TestEnv,
  c: FlowCase,
  agentEnv: Record<string, string> = {},
): Promise<{ dryRun: string; setup: string }> {
  const before = snapshot(c.files);
  const dry = await env.cli(['setup', c.agent, '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^--- /m);
  assert.match(dry.stdout, /dry run: nothing was written/);
  noSecret(c, dry.stdout + dry.stderr, 'setup --dry-run');
  assert.deepEqual(snapshot(c.files), before, '--dry-run changed nothing');
  assert.equal(
    existsSync(path.join(env.home, '.mcpctl', 'backups')),
    false,
    'no backup for a dry run',
  );

  const run = await env.cli(['setup', c.agent]);
  assert.equal(run.code, 0, run.stderr);
  noSecret(c, run.stdout + run.stderr, 'setup');
  assert.match(run.stdout, /backup: .*\.mcpctl\/backups\//);
  const after = snapshot(c.files);
  assert.deepEqual(c.agentStarts(), ['mcpctl'], 'the agent starts only mcpctl');

  // The agent's next session: what setup wrote, started in the workspace.
  const entry = c.entry();
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    cwd: env.workspace,
    env: env.env(agentEnv) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: `${c.agent}-after-setup`, version: '1.0.0' });
  await client.connect(transport);
  env.trackPid(transport.pid ?? undefined);
  try {
    await c.beforeApprove?.();
    for (const name of c.approve) {
      const approved = await env.cli(['approve', name]);
      assert.equal(approved.code, 0, approved.stderr);
    }
    const tools = await untilTools(client, `${c.reach.join(', ')} through mcpctl`, (names) =>
      c.reach.every((s) => names.some((n) => n.startsWith(`${s}__`))),
    );
    for (const s of c.never)
      assert.ok(!tools.some((n) => n.startsWith(`${s}__`)), `${s} is not served`);
    const list = await env.json<McpServerList>(['get', 'servers', '-o', 'json']);
    for (const s of c.reach) {
      const found = list.items.filter((i) => i.metadata.name === s);
      assert.equal(found.length, 1, `${s} once in mcpctl`);
      assert.ok(isReady(found[0]), `${s} Ready`);
    }
    for (const s of c.never) assert.ok(!isReady(list.items.find((i) => i.metadata.name === s)));
  } finally {
    await client.close();
    const stop = await env.cli(['stop']);
    assert.equal(stop.code, 0, stop.stderr);
  }

  const again = await env.cli(['setup', c.agent]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /^already set up/);
  assert.deepEqual(snapshot(c.files), after, 'a second setup changes nothing');

  const undo = await env.cli(['setup', c.agent, '--undo']);
  assert.equal(undo.code, 0, undo.stderr);
  noSecret(c, undo.stdout + undo.stderr, 'setup --undo');
  assert.deepEqual(snapshot(c.files), before, '--undo restores every file byte for byte');
  return { dryRun: dry.stdout, setup: run.stdout };
}

/** Setup on a file it does not understand: exit 1 naming it, nothing written. */
export async function refusedFlow(
  env: TestEnv,
  agent: FlowCase['agent'],
  files: readonly string[],
  named: string,
): Promise<void> {
  const before = snapshot(files);
  for (const args of [
    ['setup', agent],
    ['setup', agent, '--dry-run'],
  ]) {
    const r = await env.cli(args);
    assert.equal(r.code, 1, r.stdout);
    assert.ok(r.stderr.includes(named), r.stderr);
    assert.match(r.stderr, /nothing was changed/);
    assert.deepEqual(snapshot(files), before);
  }
  assert.equal(existsSync(path.join(env.home, '.mcpctl', 'backups')), false);
}
