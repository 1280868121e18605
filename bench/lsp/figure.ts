/**
 * The lsp figure (issue #24): one warm language server per workspace for every agent, against
 * what agents do today (a server per session, started cold), all in one run on this machine,
 * on a generated TypeScript project of PROJECT_FILES files (typescript-language-server 5.3 on
 * TypeScript 6.0, as the tests run it).
 *
 * - cold: a direct LSP client (lsp/'s LspConnection in this process) starts the server and asks
 *   its first definition; warm: a new agent (SDK client on a new `mcpctl serve`) on a workspace
 *   whose server already runs, from spawning serve to its first `lsp_definition` answer. Goal:
 *   warm ≥ 10× faster.
 * - per request: p50 of `lsp_definition` through mcpctl (agent → serve → daemon → server) vs the
 *   same definition from a direct client on its own warm server, after a warm-up, taking turns
 *   with two rows that say what the difference is made of: the hop alone (a call mcpctl answers
 *   without the server) and the direct client through two bare relay processes (relay-child.ts:
 *   as many processes on its path as mcpctl's, none of mcpctl's code). Goal ≤ 1.2×.
 * - five agents on one workspace: language server processes (process groups) and their RSS
 *   through mcpctl, vs five direct clients (a server each, as agents do today), every server
 *   having answered a definition (the project loaded). Goal: 1 process group, RSS ≤ 1/4.
 * - an edit of another server's `.lsp.json` entry (a second server's settings and args): the
 *   warm server's restarts (pid and `status.restarts`). Goal 0.
 *
 * Guarantees: every process the figure starts carries its folder in its command line (the
 * server's main module through a link there) and is ended before it returns (checked from
 * /proc); the folder is removed.
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LanguageServer, LanguageServerList } from '../../api/index.js';
import { LspConnection, type LspServerOptions } from '../../lsp/connection.js';
import { definition } from '../../lsp/requests.js';
import { until } from '../../testing/until.js';
import { MCPCTL, mcpctl, mcpctlEnv } from '../peer/mcpctl.js';
import { runDir, type RunDir } from '../peer/system.js';
import { killAll, processesMentioning, rssMb } from '../processes.js';
import { median, round } from '../stats.js';

export const PROJECT_FILES = 300;
export const COLD_ROUNDS = 3;
export const WARM_ROUNDS = 5;
export const REQUESTS = 200;
/** Alternated calls of both sides before any is timed. */
export const WARMUP_REQUESTS = 20;
export const AGENTS = 5;
export const GOALS = { warmSpeedup: 10, perRequestRatio: 1.2, rssShare: 0.25 } as const;

/** results.json's `lsp`. */
export interface LspFigure {
  readonly date: string;
  readonly projectFiles: number;
  /** Medians, ms. */
  readonly coldFirstDefinitionMs: number;
  readonly warmFirstDefinitionMs: number;
  readonly warmSpeedup: number;
  readonly perRequestMcpctlMs: number;
  readonly perRequestDirectMs: number;
  readonly perRequestRatio: number;
  /**
   * The agent's hop alone: a call mcpctl answers without asking the server (a file no server
   * handles), through the same serve and gateway. What mcpctl adds per request, measured.
   */
  readonly perRequestHopMs: number;
  /**
   * The direct client through two bare relays (the processes of mcpctl's path without its
   * code): what the process hops alone cost. mcpctl's figure less this is mcpctl's own code.
   */
  readonly perRequestRelayedMs: number;
  readonly agents: number;
  readonly mcpctlServerGroups: number;
  readonly mcpctlServerRssMb: number;
  readonly directServerGroups: number;
  readonly directServerRssMb: number;
  readonly rssShare: number;
  readonly restartsOnOtherEntryEdit: number;
  readonly goals: {
    readonly warmSpeedup: { readonly min: number; readonly met: boolean };
    readonly perRequestRatio: { readonly max: number; readonly met: boolean };
    readonly serverGroups: { readonly max: 1; readonly met: boolean };
    readonly rssShare: { readonly max: number; readonly met: boolean };
    readonly restarts: { readonly max: 0; readonly met: boolean };
  };
}

const requireHere = createRequire(import.meta.url);
const moduleDir = (pkg: string): string => join(requireHere.resolve(`${pkg}/package.json`), '..');

/** A chain of modules, each using the previous one's function and a shared type. */
export function writeGeneratedProject(workspace: string, files: number): void {
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(
    join(workspace, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'ES2022',
        moduleResolution: 'bundler',
        noEmit: true,
        types: [],
      },
      include: ['src'],
    }),
  );
  writeFileSync(
    join(workspace, 'src', 'types.ts'),
    'export interface Item { id: number; name: string; tags: string[] }\n',
  );
  for (let i = 0; i < files; i += 1) {
    const lines = [
      "import type { Item } from './types.js';",
      i > 0 ? `import { step${i - 1} } from './mod${i - 1}.js';` : '',
      '',
      `/** Step ${i} of the chain. */`,
      `export function step${i}(items: Item[]): Item[] {`,
      i > 0 ? `  const before = step${i - 1}(items);` : '  const before = items;',
      `  return before.map((item) => ({ ...item, tags: [...item.tags, 'step${i}'] }));`,
      '}',
      '',
      `export class Stage${i} {`,
      '  constructor(readonly items: Item[]) {}',
      `  run(): Item[] {`,
      `    return step${i}(this.items);`,
      '  }',
      '}',
      '',
    ];
    writeFileSync(join(workspace, 'src', `mod${i}.ts`), lines.join('\n'));
  }
}

/** Where the definition is asked: the call of the previous step in the middle module. */
function questionOf(files: number): { file: string; line: number; column: number } {
  const i = Math.floor(files / 2);
  // Line 6: `  const before = step{i-1}(items);`, the name at column 18.
  return { file: `src/mod${i}.ts`, line: 6, column: 18 };
}

/** The server's main module through a link in the run's folder (so its processes name it). */
export function serverMain(dir: RunDir): string {
  const link = join(dir.root, 'bin', 'typescript-language-server.mjs');
  if (!existsSync(link)) {
    mkdirSync(join(dir.root, 'bin'), { recursive: true });
    symlinkSync(join(moduleDir('typescript-language-server'), 'lib', 'cli.mjs'), link);
  }
  return link;
}

export function initializationOptions(): unknown {
  return { tsserver: { path: join(moduleDir('typescript-6'), 'lib'), useSyntaxServer: 'never' } };
}

function entry(dir: RunDir): Record<string, unknown> {
  return {
    command: process.execPath,
    args: [serverMain(dir), '--stdio'],
    extensionToLanguage: { '.ts': 'typescript' },
    initializationOptions: initializationOptions(),
  };
}

/** The relay script (relay-child.ts), beside this module in the build. */
const RELAY = fileURLToPath(new URL('./relay-child.js', import.meta.url));

/** A direct client's options; through `relays` bare relay processes when asked. */
function directOptions(dir: RunDir, relays = 0): LspServerOptions {
  const server = [process.execPath, serverMain(dir), '--stdio'];
  const relayed = Array.from({ length: relays }, () => [process.execPath, RELAY]).flat();
  const [command, ...args] = [...relayed, ...server];
  return {
    name: 'typescript',
    command: command ?? process.execPath,
    args,
    workspaceFolder: dir.workspace,
    extensionToLanguage: { '.ts': 'typescript' },
    initializationOptions: initializationOptions(),
    startupTimeoutMs: 120_000,
    requestTimeoutMs: 120_000,
  };
}

/** Process groups (pgid = leader pid) of the language servers of this run, and their RSS. */
function serverGroups(dir: RunDir): { groups: number; rssMb: number } {
  const leaders = new Set(processesMentioning(join(dir.root, 'bin')));
  let total = 0;
  const seen = new Set<number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    if (!leaders.has(pgid)) continue;
    seen.add(pgid);
    total += rssMb(Number(entry));
  }
  return { groups: seen.size, rssMb: total };
}

interface Agent {
  readonly client: Client;
  call(args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

async function connectAgent(dir: RunDir, lspConfig: string): Promise<Agent> {
  const client = new Client({ name: 'mcpctl-lsp-bench', version: '0.0.0' }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MCPCTL, 'serve', '--workspace', dir.workspace, '--lsp-config', lspConfig],
      env: mcpctlEnv(dir),
      cwd: dir.workspace,
      stderr: 'ignore',
    }),
  );
  return {
    client,
    call: async (args) => {
      const result = (await client.callTool(
        { name: 'lsp_definition', arguments: args },
        undefined,
        {
          timeout: 120_000,
        },
      )) as CallToolResult;
      if (result.isError)
        throw new Error(`lsp_definition failed: ${JSON.stringify(result.content)}`);
      return result;
    },
    close: () => client.close(),
  };
}

async function languageServers(dir: RunDir): Promise<Map<string, LanguageServer>> {
  const list = JSON.parse(
    await mcpctl(dir, ['get', 'languageservers', '-o', 'json']),
  ) as LanguageServerList;
  return new Map(list.items.map((s) => [s.metadata.name, s]));
}

function ready(s: LanguageServer | undefined): boolean {
  return s?.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await work();
  return { ms: performance.now() - t0, value };
}

export async function lspFigure(log: (line: string) => void): Promise<LspFigure> {
  const dir = runDir('lsp');
  const opened: LspConnection[] = [];
  const agents: Agent[] = [];
  try {
    writeGeneratedProject(dir.workspace, PROJECT_FILES);
    const question = questionOf(PROJECT_FILES);

    // Cold: a direct client per round, started and asked once, then closed.
    const cold: number[] = [];
    for (let r = 0; r < COLD_ROUNDS; r += 1) {
      const conn = new LspConnection(directOptions(dir));
      opened.push(conn);
      const { ms } = await timed(async () => {
        await conn.open();
        return definition(conn, question);
      });
      cold.push(ms);
      await conn.close();
      opened.pop();
    }
    log(`    cold first definition (direct, server started): ${round(median(cold))} ms`);

    // mcpctl: the daemon (started by the first serve) with the server warm.
    const lspConfig = join(dir.root, 'lsp.json');
    writeFileSync(lspConfig, JSON.stringify({ typescript: entry(dir) }, null, 2));
    const first = await connectAgent(dir, lspConfig);
    agents.push(first);
    await until(
      'the language server to be Ready',
      async () => ready((await languageServers(dir)).get('typescript')),
      { timeoutMs: 120_000 },
    );
    await until(
      'lsp_definition to be offered',
      async () => (await first.client.listTools()).tools.some((t) => t.name === 'lsp_definition'),
      { timeoutMs: 60_000 },
    );
    await first.call(question);

    const warm: number[] = [];
    for (let r = 0; r < WARM_ROUNDS; r += 1) {
      const { ms, value } = await timed(async () => {
        const agent = await connectAgent(dir, lspConfig);
        await agent.call(question);
        return agent;
      });
      warm.push(ms);
      await value.close();
    }
    log(`    warm first definition (a new agent through mcpctl): ${round(median(warm))} ms`);

    // Per request, both warm: through mcpctl vs a direct client on its own warm server.
    const direct = new LspConnection(directOptions(dir));
    opened.push(direct);
    await direct.open();
    await definition(direct, question);
    const relayed = new LspConnection(directOptions(dir, 2));
    opened.push(relayed);
    await relayed.open();
    await definition(relayed, question);
    const viaMcpctl: number[] = [];
    const viaDirect: number[] = [];
    const viaRelays: number[] = [];
    const hop: number[] = [];
    const hopOnly = () =>
      first.client.callTool({ name: 'lsp_definition', arguments: { ...question, file: 'x.none' } });
    for (let i = 0; i < WARMUP_REQUESTS; i += 1) {
      await first.call(question);
      await definition(direct, question);
      await definition(relayed, question);
      await hopOnly();
    }
    for (let i = 0; i < REQUESTS; i += 1) {
      viaMcpctl.push((await timed(() => first.call(question))).ms);
      viaDirect.push((await timed(() => definition(direct, question))).ms);
      viaRelays.push((await timed(() => definition(relayed, question))).ms);
      hop.push((await timed(hopOnly)).ms);
    }
    for (const c of opened.splice(0)) await c.close();
    const perMcpctl = median(viaMcpctl);
    const perDirect = median(viaDirect);
    const perRelayed = median(viaRelays);
    const perHop = median(hop);
    log(
      `    per request: ${round(perMcpctl)} ms through mcpctl, ${round(perDirect)} ms direct, ${round(perRelayed)} ms direct through two bare relays; the hop alone ${round(perHop)} ms`,
    );

    // Five agents on one workspace: mcpctl's groups and RSS, then five direct servers'.
    for (let i = 1; i < AGENTS; i += 1) {
      const agent = await connectAgent(dir, lspConfig);
      agents.push(agent);
      await agent.call(question);
    }
    const shared = serverGroups(dir);
    log(
      `    ${AGENTS} agents through mcpctl: ${shared.groups} server group(s), ${round(shared.rssMb)} MiB`,
    );

    // An edit of another entry: a second server added, then its settings and args edited.
    const before = (await languageServers(dir)).get('typescript');
    const other = (settings: unknown, extra: string[]) => ({
      typescript: entry(dir),
      other: {
        ...entry(dir),
        args: [serverMain(dir), '--stdio', ...extra],
        extensionToLanguage: { '.mts': 'typescript' },
        settings,
      },
    });
    writeFileSync(lspConfig, JSON.stringify(other({ a: 1 }, []), null, 2));
    const otherBefore = await until(
      'the other server to be Ready',
      async () => {
        const s = (await languageServers(dir)).get('other');
        return ready(s) ? s : undefined;
      },
      { timeoutMs: 120_000 },
    );
    writeFileSync(lspConfig, JSON.stringify(other({ a: 2 }, ['--log-level', '3']), null, 2));
    await until(
      'the other server replaced for its new args',
      async () => {
        const s = (await languageServers(dir)).get('other');
        return ready(s) && s?.status.pid !== otherBefore.status.pid;
      },
      { timeoutMs: 120_000 },
    );
    const after = (await languageServers(dir)).get('typescript');
    const restarts =
      (after?.status.restarts ?? 0) -
      (before?.status.restarts ?? 0) +
      (after?.status.pid === before?.status.pid ? 0 : 1);
    log(`    warm server restarts on another entry's edits: ${restarts}`);
    writeFileSync(lspConfig, JSON.stringify({ typescript: entry(dir) }, null, 2));

    for (const agent of agents.splice(0)) await agent.close();
    await mcpctl(dir, ['stop']);
    await until('no language server left', () => serverGroups(dir).groups === 0, {
      timeoutMs: 30_000,
    });

    // What agents do today: a server per session.
    for (let i = 0; i < AGENTS; i += 1) {
      const conn = new LspConnection(directOptions(dir));
      opened.push(conn);
    }
    await Promise.all(
      opened.map(async (c) => {
        await c.open();
        await definition(c, question);
      }),
    );
    const perSession = serverGroups(dir);
    log(
      `    ${AGENTS} direct clients: ${perSession.groups} server groups, ${round(perSession.rssMb)} MiB`,
    );
    for (const c of opened.splice(0)) await c.close();

    const warmSpeedup = median(cold) / median(warm);
    const ratio = perMcpctl / perDirect;
    const share = shared.rssMb / perSession.rssMb;
    return {
      date: new Date().toISOString(),
      projectFiles: PROJECT_FILES,
      coldFirstDefinitionMs: round(median(cold)),
      warmFirstDefinitionMs: round(median(warm)),
      warmSpeedup: round(warmSpeedup, 1),
      perRequestMcpctlMs: round(perMcpctl),
      perRequestDirectMs: round(perDirect),
      perRequestRatio: round(ratio),
      perRequestHopMs: round(perHop),
      perRequestRelayedMs: round(perRelayed),
      agents: AGENTS,
      mcpctlServerGroups: shared.groups,
      mcpctlServerRssMb: round(shared.rssMb),
      directServerGroups: perSession.groups,
      directServerRssMb: round(perSession.rssMb),
      rssShare: round(share),
      restartsOnOtherEntryEdit: restarts,
      goals: {
        warmSpeedup: { min: GOALS.warmSpeedup, met: warmSpeedup >= GOALS.warmSpeedup },
        perRequestRatio: { max: GOALS.perRequestRatio, met: ratio <= GOALS.perRequestRatio },
        serverGroups: { max: 1, met: shared.groups === 1 },
        rssShare: { max: GOALS.rssShare, met: share <= GOALS.rssShare },
        restarts: { max: 0, met: restarts === 0 },
      },
    };
  } finally {
    for (const agent of agents) await agent.close().catch(() => undefined);
    for (const c of opened) await c.close();
    await mcpctl(dir, ['stop']).catch(() => undefined);
    const left = processesMentioning(dir.root);
    if (left.length > 0) killAll(left);
    dir.remove();
  }
}

export function lspLines(f: LspFigure): string[] {
  const mark = (met: boolean) => (met ? 'met' : 'MISSED');
  return [
    `9 lsp (issue 24), a generated TypeScript project of ${f.projectFiles} files:`,
    `  first definition: cold (direct, server started) ${f.coldFirstDefinitionMs} ms, warm (new agent through mcpctl) ${f.warmFirstDefinitionMs} ms: ${f.warmSpeedup}× (goal ≥ ${f.goals.warmSpeedup.min}×, ${mark(f.goals.warmSpeedup.met)})`,
    `  per request (warm): mcpctl ${f.perRequestMcpctlMs} ms, direct ${f.perRequestDirectMs} ms: ${f.perRequestRatio}× (goal ≤ ${f.goals.perRequestRatio.max}×, ${mark(f.goals.perRequestRatio.met)}); mcpctl's hop alone ${f.perRequestHopMs} ms`,
    `    direct through two bare relays (mcpctl's processes, none of its code) ${f.perRequestRelayedMs} ms: ${round(f.perRequestRelayedMs / f.perRequestDirectMs)}× direct; mcpctl's own code ${round(f.perRequestMcpctlMs - f.perRequestRelayedMs)} ms per request`,
    `  ${f.agents} agents on one workspace: mcpctl ${f.mcpctlServerGroups} server (${f.mcpctlServerRssMb} MiB), one per agent ${f.directServerGroups} (${f.directServerRssMb} MiB): ${f.rssShare} of the RSS (goal 1 server, ≤ ${f.goals.rssShare.max}; ${mark(f.goals.serverGroups.met && f.goals.rssShare.met)})`,
    `  restarts of the warm server on another entry's edits: ${f.restartsOnOtherEntryEdit} (goal 0, ${mark(f.goals.restarts.met)})`,
  ];
}
