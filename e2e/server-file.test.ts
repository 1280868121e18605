/**
 * e2e: mcpctl's own server file and `mcpctl add` / `mcpctl remove` (issue 33). The built CLI
 * edits the file while a daemon runs; the agent's session (through `mcpctl serve`) follows by
 * the watcher within the settle time, no reload. Hostile input changes nothing and never
 * prints a secret.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { SessionList } from '../cli/objects.js';
import { releaseReaders } from '../testing/fifo.js';
import { until } from '../testing/until.js';
import {
  FIXTURE,
  MEMORY_SERVER,
  TestEnv,
  condition,
  isReady,
  untilTools,
  type CliResult,
  type ServeClient,
} from './harness.js';

const T = { timeout: 120_000 };
/** A value that must never be printed anywhere. */
const SECRET = 'sk-live-9f8e7d6c5b4a-never-print-me';

function sha(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function ok(r: CliResult, what: string): CliResult {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

describe('mcpctl add / remove and the server file (e2e)', () => {
  let env: TestEnv;
  const agents: ServeClient[] = [];
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    for (const a of agents.splice(0)) await a.close().catch(() => undefined);
    await env.cleanup();
  });

  async function agent(): Promise<ServeClient> {
    const a = await env.serveClient();
    agents.push(a);
    return a;
  }

  const tools = (a: ServeClient, what: string, check: (names: string[]) => boolean) =>
    untilTools(a.client, what, check, { timeoutMs: 20_000, stderr: a.stderr });

  it(
    'add: the running session gets the server (Ready, with its tools) through serve; remove: it goes',
    T,
    async () => {
      const daemon = await env.startDaemon();
      const a = await agent();
      assert.equal(existsSync(path.dirname(env.serverFilePath)), false, 'no ~/.mcpctl/ yet');
      const add = ok(
        await env.cli([
          'add',
          '--scope',
          'user',
          'mem',
          '--env',
          `MEMORY_FILE_PATH=${path.join(env.root, 'memory.jsonl')}`,
          '--env',
          `API_TOKEN=${SECRET}`,
          '--',
          process.execPath,
          MEMORY_SERVER,
        ]),
        'add',
      );
      assert.match(add.stdout, /added server "mem" in .*mcp\.json \(scope user/);
      assert.match(add.stdout, /"API_TOKEN": "<redacted>"/);
      assert.equal(statSync(env.serverFilePath).mode & 0o777, 0o600);
      assert.equal(statSync(path.dirname(env.serverFilePath)).mode & 0o777, 0o700);
      await tools(a, 'mem tools through serve', (n) => n.includes('mem__read_graph'));
      const servers = await env.untilServers((m) => isReady(m.get('mem')), 'mem Ready');
      const mem = servers.get('mem')!;
      assert.equal(mem.metadata.annotations?.['mcpctl.dev/scope'], 'user');
      assert.equal(mem.metadata.annotations?.['mcpctl.dev/source'], env.serverFilePath);
      // The secret is nowhere: not in add's output, get -o yaml, describe, nor the daemon's log.
      const yaml = ok(await env.cli(['get', 'servers', '-o', 'yaml']), 'get -o yaml');
      const describe = ok(await env.cli(['describe', 'server', 'mem']), 'describe');
      for (const [what, text] of [
        ['add stdout', add.stdout],
        ['add stderr', add.stderr],
        ['get -o yaml', yaml.stdout],
        ['describe', describe.stdout + describe.stderr],
        ['daemon log', daemon.stderr()],
      ] as const)
        assert.ok(!text.includes(SECRET), `${what} shows the secret`);
      // The session lists the file among its sources.
      const sessions = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
      const listed = sessions.items[0]?.status.sources.find((s) => s.file === env.serverFilePath);
      assert.deepEqual(listed, {
        file: env.serverFilePath,
        scope: 'user',
        holds: 'servers',
        exists: true,
        valid: true,
      });

      // Another config under that name is refused without --force, saying so; nothing changes.
      const before = sha(env.serverFilePath);
      const clash = await env.cli(['add', '--scope', 'user', 'mem', '--', 'node', 'other.js']);
      assert.equal(clash.code, 1);
      assert.match(clash.stderr, /already holds another server of that name.*--force/);
      assert.equal(sha(env.serverFilePath), before);

      const remove = ok(await env.cli(['remove', 'mem']), 'remove');
      assert.match(remove.stdout, /removed server "mem" from .*scope user/);
      await tools(a, 'mem tools gone', (n) => !n.some((t) => t.startsWith('mem__')));
      await env.untilServers((m) => !m.has('mem'), 'mem gone from get servers');
      const absent = await env.cli(['remove', 'mem']);
      assert.equal(absent.code, 1);
      assert.match(
        absent.stderr,
        /no server "mem": looked in .*mcp\.json at projects\[.*mcp\.json at mcpServers\."mem".*\.mcp\.json at mcpServers\."mem"/,
      );
    },
  );

  it(
    'local (the default) is this workspace only; project goes through approval, never started before',
    T,
    async () => {
      await env.startDaemon();
      const a = await agent();
      const other = path.join(env.root, 'other');
      mkdirSync(other);
      const fixture = (name: string) => [
        '--',
        process.execPath,
        FIXTURE,
        `--pid-file=${env.pidFile(name)}`,
      ];
      mkdirSync(path.dirname(env.pidFile('x')), { recursive: true });
      // Written as a .mcp.json is: `${VAR:-default}` expands (Qwen's syntax would leave it).
      const withDefault = [
        '--',
        process.execPath,
        FIXTURE,
        `--pid-file=\${MCPCTL_E2E_UNSET:-${env.pidFile('loc')}}`,
      ];
      ok(await env.cli(['add', 'loc', ...withDefault]), 'add local');
      const file = JSON.parse(readFileSync(env.serverFilePath, 'utf8')) as {
        projects: Record<string, unknown>;
      };
      assert.deepEqual(Object.keys(file.projects), [realpathSync(env.workspace)]);
      await tools(a, 'loc tools', (n) => n.includes('loc__echo'));
      assert.ok(existsSync(env.pidFile('loc')), 'the default of ${MCPCTL_E2E_UNSET:-…} was used');
      const elsewhere = await env.servers({ args: ['--workspace', other] });
      assert.equal(elsewhere.has('loc'), false, "another workspace's session has no local server");

      ok(await env.cli(['add', '--scope', 'project', 'proj', ...fixture('proj')]), 'add project');
      assert.ok(existsSync(env.mcpJsonPath));
      const pending = await env.untilServers(
        (m) => condition(m.get('proj'), 'Admitted')?.reason === 'PendingApproval',
        'proj pending',
      );
      assert.equal(pending.get('proj')?.metadata.annotations?.['mcpctl.dev/scope'], 'project');
      assert.equal(existsSync(env.pidFile('proj')), false, 'never started before approval');
      ok(await env.cli(['approve', 'proj']), 'approve');
      await tools(a, 'proj tools after approval', (n) => n.includes('proj__echo'));
      assert.ok(existsSync(env.pidFile('proj')));
      // Both places hold no other name: remove finds each where it is.
      ok(await env.cli(['remove', 'proj']), 'remove project');
      ok(await env.cli(['remove', 'loc']), 'remove local');
      await tools(
        a,
        'both gone',
        (n) => !n.some((t) => t.startsWith('proj__') || t.startsWith('loc__')),
      );
      assert.deepEqual(JSON.parse(readFileSync(env.serverFilePath, 'utf8')), {});
    },
  );

  it(
    'hostile: a control-character name, a FIFO, a link to /etc/passwd, a syntax error change nothing',
    T,
    async () => {
      mkdirSync(path.dirname(env.serverFilePath), { mode: 0o700 });
      env.write(
        env.serverFilePath,
        '// mine\n{ "mcpServers": { "keep": ' + JSON.stringify(env.fixture('keep')) + ' } }\n',
      );
      await env.startDaemon();
      const a = await agent();
      await tools(a, 'keep tools', (n) => n.includes('keep__echo'));
      const original = sha(env.serverFilePath);

      const evil = await env.cli([
        'add',
        '--scope',
        'user',
        'evil\u001b[2Jname\u202e',
        '--',
        'node',
      ]);
      assert.equal(evil.code, 1);
      assert.match(
        evil.stderr,
        /the server name "evil\\u001b\[2Jname\\u202e" contains the control character U\+001B/,
      );
      assert.ok(!/[\u001b\u202e]/.test(evil.stderr + evil.stdout), 'the name is shown escaped');
      assert.equal(sha(env.serverFilePath), original);

      // A syntax error: add refuses (file, line), nothing changes, the session keeps its servers.
      const broken =
        '{ "mcpServers": { "keep": ' + JSON.stringify(env.fixture('keep')) + ' ,, } }\n';
      env.write(env.serverFilePath, broken);
      const brokenSha = sha(env.serverFilePath);
      const onBroken = await env.cli(['add', '--scope', 'user', 'x', '--', 'node']);
      assert.equal(onBroken.code, 1);
      assert.match(onBroken.stderr, /mcp\.json:1:\d+: syntax error: .*nothing was changed/);
      assert.equal(sha(env.serverFilePath), brokenSha);
      await until('ConfigValid=False for the broken file', async () => {
        const list = await env.json<SessionList>(['get', 'sessions', '-o', 'json']);
        return (
          list.items[0]?.status.sources.find((s) => s.file === env.serverFilePath)?.valid === false
        );
      });
      assert.ok(
        (await a.client.listTools()).tools.some((t) => t.name === 'keep__echo'),
        'kept',
      );

      // A FIFO where the file should be: refused at once, unread (the CLI does not hang).
      execFileSync('rm', [env.serverFilePath]);
      execFileSync('mkfifo', [env.serverFilePath]);
      try {
        const onFifo = await env.cli(['add', '--scope', 'user', 'x', '--', 'node'], {
          timeoutMs: 20_000,
        });
        assert.equal(onFifo.code, 1);
        assert.match(onFifo.stderr, /is a FIFO \(named pipe\), not a regular file/);
        assert.ok(statSync(env.serverFilePath).isFIFO());
        const rmFifo = await env.cli(['remove', '--scope', 'user', 'keep'], { timeoutMs: 20_000 });
        assert.equal(rmFifo.code, 1);
      } finally {
        releaseReaders([env.serverFilePath]);
      }

      // A link to /etc/passwd: refused, the link and its target left alone.
      execFileSync('rm', [env.serverFilePath]);
      symlinkSync('/etc/passwd', env.serverFilePath);
      const passwd = sha('/etc/passwd');
      const onLink = await env.cli(['add', '--scope', 'user', 'x', '--', 'node']);
      assert.equal(onLink.code, 1);
      assert.match(
        onLink.stderr,
        /is a symbolic link; mcpctl neither reads nor writes a server file through a link/,
      );
      assert.ok(!onLink.stderr.includes('root:'), 'nothing of the target is shown');
      assert.equal(sha('/etc/passwd'), passwd);
      assert.ok(lstatSync(env.serverFilePath).isSymbolicLink(), 'the link is left as it was');
      // Through it all, the session kept its last good servers.
      assert.ok(
        (await a.client.listTools()).tools.some((t) => t.name === 'keep__echo'),
        'kept',
      );
    },
  );
});
