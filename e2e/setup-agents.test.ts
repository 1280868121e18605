/**
 * e2e: `mcpctl setup AGENT` for Claude Code, Gemini CLI, Qwen Code, VS Code and Cursor (issue 33). Each agent's
 * config written as its docs say (user and project servers, an excluded one, comments, a
 * secret), real servers (server-memory, server-everything, server-filesystem); `--dry-run`
 * changes no byte, setup leaves one mcpctl entry the agent starts and every server reachable
 * through it once, a second setup is a no-op, `--undo` restores every byte. A file setup does
 * not understand is left as it is, with a message naming it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parse } from 'jsonc-parser';
import type { McpServerList } from '../api/index.js';
import { makeFifo } from '../testing/fifo.js';
import { condition, isReady, TestEnv } from './harness.js';
import { refusedFlow, setupFlow } from './setup-flow.js';
import { until } from '../testing/until.js';

const T = { timeout: 150_000 };
const requireHere = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(requireHere.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);
const SECRET = 'sk-e2e-setup-0123456789';

type Obj = Record<string, unknown>;
const read = (file: string): Obj => parse(readFileSync(file, 'utf8')) as Obj;
const keysOf = (v: unknown): string[] => (v && typeof v === 'object' ? Object.keys(v) : []);

let env: TestEnv;
beforeEach(() => {
  env = new TestEnv();
});
afterEach(async () => {
  await env.cleanup();
});

const serverFile = () => path.join(env.home, '.mcpctl', 'mcp.json');

describe('mcpctl setup claude (e2e)', () => {
  const user = () => path.join(env.home, '.claude.json');
  const local = () => path.join(env.workspace, '.claude', 'settings.local.json');
  function write(): void {
    const mem = env.memoryServer();
    env.write(
      user(),
      `{
  "numStartups": 7,
  "mcpServers": {
    "mem": { "type": "stdio", "command": ${JSON.stringify(mem.command)}, "args": ${JSON.stringify(mem.args)}, "env": { "MEMORY_FILE_PATH": ${JSON.stringify(mem.env.MEMORY_FILE_PATH)}, "API_KEY": "${SECRET}" } }
  },
  "projects": {
    ${JSON.stringify(env.workspace)}: {
      "allowedTools": [],
      "mcpServers": { "evr": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}] } }
    }
  }
}
`,
    );
    env.write(env.mcpJsonPath, {
      mcpServers: { proj: env.filesystemServer(env.workspace), off: env.fixture('off') },
    });
    // "off" was turned down in Claude already (its private settings of the folder).
    env.write(local(), '{\n  // mine\n  "disabledMcpjsonServers": ["off"]\n}\n');
  }
  /** What Claude starts: user, this folder's local, and .mcp.json's not disabled. */
  function claudeStarts(): string[] {
    const u = read(user());
    const projects = (u.projects ?? {}) as Record<string, Obj>;
    const disabled = (read(local()).disabledMcpjsonServers ?? []) as string[];
    return [
      ...keysOf(u.mcpServers),
      ...keysOf(projects[env.workspace]?.mcpServers),
      ...keysOf(read(env.mcpJsonPath).mcpServers).filter((n) => !disabled.includes(n)),
    ];
  }

  it(
    'moves user and local servers to mcpctl, skips .mcp.json’s in Claude, and undoes',
    T,
    async () => {
      write();
      const out = await setupFlow(env, {
        agent: 'claude',
        files: [user(), local(), env.mcpJsonPath, serverFile()],
        secrets: [SECRET],
        agentStarts: claudeStarts,
        entry: () =>
          (read(user()).mcpServers as Record<string, { command: string; args: string[] }>).mcpctl,
        reach: ['mem', 'evr', 'proj'],
        approve: ['proj'],
        never: ['off'],
      });
      assert.match(out.setup, /disabledMcpjsonServers/);
      assert.match(out.dryRun, /"API_KEY": "<redacted>"/);
    },
  );

  it('--http writes the endpoint with the token header, never printing the token', T, async () => {
    write();
    const dry = await env.cli(['setup', 'claude', '--http', '127.0.0.1:7123', '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /"Authorization": "Bearer <redacted>"/);
    const run = await env.cli(['setup', 'claude', '--http', '127.0.0.1:7123']);
    assert.equal(run.code, 0, run.stderr);
    const token = (await env.cli(['token'])).stdout.trim();
    assert.ok(token.length >= 16);
    for (const out of [dry, run])
      assert.ok(!(out.stdout + out.stderr).includes(token), 'token printed');
    assert.deepEqual((read(user()).mcpServers as Obj).mcpctl, {
      type: 'http',
      url: 'http://127.0.0.1:7123/mcp',
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.match(
      (await env.cli(['setup', 'claude', '--http', '127.0.0.1:7123'])).stdout,
      /^already set up/,
    );
  });

  it(
    '--undo refuses a file changed since setup (Claude rewrote it), unless --force',
    T,
    async () => {
      write();
      const original = readFileSync(user(), 'utf8');
      assert.equal((await env.cli(['setup', 'claude'])).code, 0);
      const changed = readFileSync(user(), 'utf8').replace('"numStartups": 7', '"numStartups": 8');
      env.write(user(), changed);
      const undo = await env.cli(['setup', 'claude', '--undo']);
      assert.equal(undo.code, 1);
      assert.ok(undo.stderr.includes(`${user()}: changed since setup wrote it`), undo.stderr);
      assert.match(undo.stderr, /--force/);
      assert.equal(readFileSync(user(), 'utf8'), changed, 'nothing changed');
      const forced = await env.cli(['setup', 'claude', '--undo', '--force']);
      assert.equal(forced.code, 0, forced.stderr);
      assert.equal(readFileSync(user(), 'utf8'), original);
      assert.match((await env.cli(['setup', 'claude', '--undo'])).stdout, /^nothing to undo/);
    },
  );

  it('leaves a ~/.claude.json it does not understand as it is, saying which file', T, async () => {
    env.write(user(), '{ "mcpServers": { "x": { "command": 5 } } }\n');
    await refusedFlow(env, 'claude', [user(), serverFile()], user());
    env.write(user(), '{ "mcpServers": ');
    await refusedFlow(env, 'claude', [user(), serverFile()], user());
  });

  it('refuses a symlinked or FIFO settings.local.json, writing nothing', T, async () => {
    env.write(env.mcpJsonPath, { mcpServers: { proj: env.filesystemServer(env.workspace) } });
    env.write(path.join(env.root, 'elsewhere.json'), '{}\n');
    mkdirSync(path.dirname(local()), { recursive: true });
    symlinkSync(path.join(env.root, 'elsewhere.json'), local());
    await refusedFlow(
      env,
      'claude',
      [user(), path.join(env.root, 'elsewhere.json'), serverFile()],
      local(),
    );
  });
});

describe('mcpctl setup gemini (e2e)', () => {
  const user = () => path.join(env.home, '.gemini', 'settings.json');
  const project = () => path.join(env.workspace, '.gemini', 'settings.json');
  const enablement = () => path.join(env.home, '.gemini', 'mcp-server-enablement.json');
  function write(): void {
    const mem = env.memoryServer();
    env.write(
      user(),
      `{
  // Gemini CLI's user settings
  "theme": "Default",
  "mcpServers": {
    "mem": {
      "command": ${JSON.stringify(mem.command)},
      "args": ${JSON.stringify(mem.args)},
      "env": { "MEMORY_FILE_PATH": "$MEMFILE", "API_KEY": "${SECRET}" }, // moved as \${MEMFILE}
    },
    "evr": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}] },
    "off": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}] }
  },
  "mcp": { "excluded": ["off"] }
}
`,
    );
    // The repository's: server-memory by absolute path, its own data file.
    const proj = {
      command: process.execPath,
      args: env.memoryServer().args,
      env: { MEMORY_FILE_PATH: path.join(env.root, 'project-memory.jsonl') },
    };
    env.write(
      project(),
      `{\n  // the repository's\n  "mcpServers": { "Proj": ${JSON.stringify(proj)} }\n}\n`,
    );
  }
  /** What Gemini starts, as it reads its files: user and project servers, less the excluded and
   * those its enablement file disables (names trimmed and lower-cased). */
  function geminiStarts(): string[] {
    const norm = (n: string) => n.trim().toLowerCase();
    const u = read(user());
    const excluded = (((u.mcp as Obj | undefined)?.excluded ?? []) as string[]).map(norm);
    const switches = existsSync(enablement()) ? read(enablement()) : {};
    const disabled = (n: string) => (switches[norm(n)] as Obj | undefined)?.enabled === false;
    return [...keysOf(u.mcpServers), ...keysOf(read(project()).mcpServers)].filter(
      (n) => !excluded.includes(norm(n)) && !disabled(n),
    );
  }

  it(
    'moves the user servers Gemini starts ($VAR as ${VAR}), switches the project ones off for Gemini, serves them once approved, and undoes',
    T,
    async () => {
      write();
      const out = await setupFlow(
        env,
        {
          agent: 'gemini',
          files: [user(), project(), enablement(), serverFile()],
          secrets: [SECRET],
          agentStarts: geminiStarts,
          entry: () =>
            (read(user()).mcpServers as Record<string, { command: string; args: string[] }>).mcpctl,
          async beforeApprove() {
            // The repository's server is gated in mcpctl: pending, never started before approval.
            const m = await env.untilServers(
              (s) =>
                condition(s.get('Proj'), 'Admitted')?.reason === 'PendingApproval' &&
                isReady(s.get('mem')),
              'Proj pending, mem Ready',
            );
            const proj = m.get('Proj')!;
            assert.equal(proj.metadata.annotations?.['mcpctl.dev/scope'], 'workspace');
            assert.equal(condition(proj, 'Ready')?.reason, 'NotAdmitted');
            assert.equal(proj.status.pid, undefined, 'not started before approval');
          },
          reach: ['mem', 'evr', 'Proj'],
          approve: ['Proj'],
          never: ['off'],
        },
        { MEMFILE: env.memoryServer().env.MEMORY_FILE_PATH },
      );
      assert.match(
        out.setup,
        /"Proj" of .*disabled for Gemini CLI with its own switch, which is global/,
      );
      assert.match(out.dryRun, /\/\/ Gemini CLI's user settings/);
    },
  );

  it(
    'a project settings.json that is a FIFO, or broken, changes nothing and is named',
    T,
    async () => {
      // A server of the user's that runs whatever the repository's file holds.
      env.write(env.userSettingsPath, { mcpServers: { mine: env.memoryServer() } });
      mkdirSync(path.dirname(project()), { recursive: true });
      makeFifo(project());
      const files = [user(), enablement(), serverFile(), env.userSettingsPath];
      await refusedFlow(env, 'gemini', files, project());
      await env.startDaemon();
      interface Listed {
        items: {
          status: {
            conditions: { type: string; message: string }[];
            sources: { file: string; scope: string; valid: boolean }[];
          };
        }[];
      }
      const session = async () =>
        (await env.json<Listed>(['get', 'sessions', '-o', 'json'])).items[0]?.status;
      const configMessage = async () =>
        (await session())?.conditions.find((c) => c.type === 'ConfigValid')?.message ?? '';
      await until('the FIFO named by the session', async () =>
        (await configMessage()).includes(project()),
      );
      const listed = (await session())?.sources.find((s) => s.file === project());
      assert.deepEqual([listed?.scope, listed?.valid], ['workspace', false]);

      // A syntax error: setup refuses naming file and line; mcpctl runs nothing of it, says where.
      rmSync(project());
      env.write(project(), '{\n  "mcpServers": {\n    "Proj": { "command": "node" },,\n  }\n}\n');
      await refusedFlow(env, 'gemini', files, `${project()}:3:`);
      await until('the syntax error named with its line', async () =>
        (await configMessage()).includes(`${project()}:3:`),
      );
      const m = await env.untilServers((s) => isReady(s.get('mine')), 'mine Ready');
      assert.equal(m.get('Proj'), undefined, 'nothing of the broken file runs');
    },
  );

  it('leaves a FIFO where settings.json should be, saying which file', T, async () => {
    mkdirSync(path.dirname(user()), { recursive: true });
    makeFifo(user());
    await refusedFlow(env, 'gemini', [serverFile()], user());
  });
});

describe('mcpctl setup qwen (e2e)', () => {
  it(
    'moves Qwen’s user servers to mcpctl’s file (mcpctl reads both), keeps the excluded one, gives the repository’s servers Qwen’s own switch but not mcpctl’s, and undoes',
    T,
    async () => {
      const mem = env.memoryServer();
      env.write(
        env.userSettingsPath,
        `{
  // Qwen Code's user settings, read by mcpctl too
  "mcpServers": {
    "mem": { "command": ${JSON.stringify(mem.command)}, "args": ${JSON.stringify(mem.args)}, "env": { "MEMORY_FILE_PATH": ${JSON.stringify(mem.env.MEMORY_FILE_PATH)}, "API_KEY": "${SECRET}" } },
    "off": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}] }
  },
  "mcp": { "excluded": ["off"] }
}
`,
      );
      env.write(env.mcpJsonPath, { mcpServers: { proj: env.filesystemServer(env.workspace) } });
      // The repository's Qwen settings: started by Qwen Code (a trusted folder) and by mcpctl.
      env.write(
        env.workspaceSettingsPath,
        '{\n  // the repository\'s\n  "mcpServers": { "wsq": ' +
          JSON.stringify(env.fixture('wsq')) +
          ' }\n}\n',
      );
      /** As Qwen Code 0.15 reads them: user then workspace servers, the lists joined, exact names. */
      const qwenStarts = (): string[] => {
        const u = read(env.userSettingsPath);
        const w = read(env.workspaceSettingsPath);
        const listOf = (doc: Obj): string[] =>
          ((doc.mcp as Obj | undefined)?.excluded ?? []) as string[];
        const excluded = [...listOf(u), ...listOf(w)];
        return [...new Set([...keysOf(u.mcpServers), ...keysOf(w.mcpServers)])].filter(
          (n) => !excluded.includes(n),
        );
      };
      await setupFlow(env, {
        agent: 'qwen',
        files: [env.userSettingsPath, env.workspaceSettingsPath, env.mcpJsonPath, serverFile()],
        secrets: [SECRET],
        agentStarts: qwenStarts,
        entry: () =>
          (
            read(env.userSettingsPath).mcpServers as Record<
              string,
              { command: string; args: string[] }
            >
          ).mcpctl,
        reach: ['mem', 'proj', 'wsq'],
        approve: ['proj', 'wsq'],
        beforeApprove: async () => {
          // Gated as ever: the Qwen-only switch admits nothing, it only keeps Qwen off it.
          const list = await env.json<McpServerList>(['get', 'servers', '-o', 'json']);
          const wsq = list.items.find((i) => i.metadata.name === 'wsq');
          assert.ok(wsq !== undefined && !isReady(wsq), 'wsq waits for approval');
          assert.equal(condition(wsq, 'Admitted')?.reason, 'PendingApproval');
        },
        never: ['off'],
      });
    },
  );
});

for (const editor of [
  {
    agent: 'vscode' as const,
    section: 'servers',
    user: () => path.join(env.home, '.config', 'Code', 'User', 'mcp.json'),
    repo: () => path.join(env.workspace, '.vscode', 'mcp.json'),
    type: { type: 'stdio' },
  },
  {
    agent: 'cursor' as const,
    section: 'mcpServers',
    user: () => path.join(env.home, '.cursor', 'mcp.json'),
    repo: () => path.join(env.workspace, '.cursor', 'mcp.json'),
    type: {},
  },
]) {
  describe(`mcpctl setup ${editor.agent} (e2e)`, () => {
    it(
      'moves the user servers (${env:X} as ${X}), leaves the repository’s with the editor, and undoes',
      T,
      async () => {
        const mem = env.memoryServer();
        env.write(
          editor.user(),
          `{
  // ${editor.agent}'s user servers
  "${editor.section}": {
    "mem": { ${editor.agent === 'vscode' ? '"type": "stdio", ' : ''}"command": ${JSON.stringify(mem.command)}, "args": ${JSON.stringify(mem.args)}, "env": { "MEMORY_FILE_PATH": "\${env:MEMFILE}", "API_KEY": "${SECRET}" } },
    "evr": { ${editor.agent === 'vscode' ? '"type": "stdio", ' : ''}"command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(EVERYTHING)}] }
  }
}
`,
        );
        env.write(editor.repo(), {
          [editor.section]: { repo: { ...editor.type, ...env.fixture('repo') } },
        });
        const out = await setupFlow(
          env,
          {
            agent: editor.agent,
            files: [editor.user(), editor.repo(), serverFile()],
            secrets: [SECRET],
            agentStarts: () => keysOf(read(editor.user())[editor.section]),
            entry: () =>
              (
                read(editor.user())[editor.section] as Record<
                  string,
                  { command: string; args: string[] }
                >
              ).mcpctl,
            reach: ['mem', 'evr'],
            approve: [],
            never: ['repo'],
          },
          { MEMFILE: mem.env.MEMORY_FILE_PATH },
        );
        assert.match(out.setup, /keeps starting "repo" itself/);
      },
    );

    it('refuses an entry with an input it cannot ask for, naming it', T, async () => {
      env.write(
        editor.user(),
        `{ "${editor.section}": { "ask": { "command": "c", "env": { "K": "\${input:key}" } } } }\n`,
      );
      await refusedFlow(env, editor.agent, [editor.user(), serverFile()], '"ask"');
    });
  });
}
