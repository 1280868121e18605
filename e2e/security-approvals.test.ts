/**
 * e2e attacks on the approval gate (hardening issue, findings 2, 9, 12 and part of 15), run
 * against the BUILT daemon, CLI and `mcpctl serve`, each in a temporary HOME:
 * - a hostile repository swaps `.mcp.json` while the user is being asked about it: the answer
 *   must approve only the config that was shown, never the swapped one;
 * - `mcpctl approve` says what it approved and can be pinned to a hash;
 * - one malformed entry in the approvals file (any project's) must not cost every other
 *   decision, and no write may silently drop it;
 * - the CLI run outside any session's folder must not act on another project's session
 *   silently, and never approve there;
 * - an approvals file that is a symbolic link is never written (or read) through.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { approvalHashOf, type McpServer } from '../api/index.js';
import { TestEnv, condition, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

const admitted = (m: Map<string, McpServer>, name: string) =>
  condition(m.get(name), 'Admitted')?.reason;

/** The approvals file's record of `name` in the test workspace, if any. */
function recordOf(env: TestEnv, name: string): { hash: string; status: string } | undefined {
  if (!existsSync(env.approvalsPath)) return undefined;
  const file = JSON.parse(readFileSync(env.approvalsPath, 'utf8')) as Record<
    string,
    Record<string, { hash: string; status: string }> | undefined
  >;
  return file[realpathSync(env.workspace)]?.[name];
}

describe('approval swap while the question is open (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'serve: accepting a question about config A after .mcp.json became B approves nothing and asks about B',
    T,
    async () => {
      env.write(env.mcpJsonPath, { mcpServers: { pa: env.fixture('pa', ['--tools=shown']) } });
      await env.startDaemon();
      const questions: string[] = [];
      let answerFirst: (result: ElicitResult) => void = () => undefined;
      const firstAnswer = new Promise<ElicitResult>((resolve) => (answerFirst = resolve));
      const { transport, stderr: serveStderrOf } = env.serveTransport();
      const client = new Client(
        { name: 'swap-agent', version: '1.0.0' },
        { capabilities: { elicitation: {} } },
      );
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        questions.push(request.params.message);
        // The first question stays open until the test answers it; later ones decide nothing.
        return questions.length === 1 ? firstAnswer : { action: 'cancel' as const };
      });
      await client.connect(transport);
      env.trackPid(transport.pid ?? undefined);
      try {
        await until(
          () => `the question about pa (serve stderr: ${serveStderrOf()})`,
          () => questions.length >= 1,
          { timeoutMs: 20_000 },
        );
        assert.match(questions[0], /--tools=shown/);

        // The repository swaps the config while the dialog is open.
        env.write(env.mcpJsonPath, { mcpServers: { pa: env.fixture('pa', ['--tools=swapped']) } });
        await env.untilServers(
          (m) => m.get('pa')?.spec.args?.includes('--tools=swapped') === true,
          'the daemon to see config B',
        );
        answerFirst({ action: 'accept', content: { decision: 'approve' } });

        // Either B is (wrongly) admitted, or the user is asked again about B.
        await until(
          'a new question about B (or B admitted)',
          async () => questions.length >= 2 || isReady((await env.servers()).get('pa')),
          { timeoutMs: 20_000 },
        );
        const servers = await env.servers();
        assert.equal(admitted(servers, 'pa'), 'PendingApproval', 'B was not approved');
        assert.equal(servers.get('pa')?.status.pid, undefined);
        assert.equal(existsSync(env.pidFile('pa')), false, 'no process was started for pa');
        assert.equal(recordOf(env, 'pa'), undefined, 'nothing was written for pa');
        assert.equal(questions.length, 2);
        assert.match(questions[1], /--tools=swapped/, 'the second question shows config B');
        assert.doesNotMatch(questions[1], /--tools=shown/);
      } finally {
        answerFirst({ action: 'cancel' });
        await client.close();
      }
    },
  );

  it(
    'CLI: approve --hash pins the config; a stale or short prefix approves nothing; approve prints what it approved',
    T,
    async () => {
      env.write(env.mcpJsonPath, {
        mcpServers: {
          pa: { ...env.fixture('pa', ['--tools=shown']), env: { TOKEN: 'hunter2-secret' } },
        },
      });
      await env.startDaemon();
      const hashA = (
        await env.untilServers((m) => admitted(m, 'pa') === 'PendingApproval', 'pa pending')
      ).get('pa')!.status.approvalHash!;
      assert.match(hashA, /^[0-9a-f]{64}$/);

      env.write(env.mcpJsonPath, {
        mcpServers: {
          pa: { ...env.fixture('pa', ['--tools=swapped']), env: { TOKEN: 'hunter2-secret' } },
        },
      });
      const hashB = (
        await env.untilServers(
          (m) => m.get('pa')?.status.approvalHash !== hashA,
          'the daemon to see config B',
        )
      ).get('pa')!.status.approvalHash!;

      const stale = await env.cli(['approve', 'pa', '--hash', hashA.slice(0, 12)]);
      assert.equal(stale.code, 1, `stale hash refused: ${stale.stdout}${stale.stderr}`);
      assert.match(stale.stderr, new RegExp(hashA.slice(0, 12)));
      assert.match(stale.stderr, new RegExp(hashB), 'says the current hash');
      assert.match(stale.stderr, /--tools=swapped/, 'says the current config');
      assert.doesNotMatch(stale.stderr, /hunter2/, 'never an env value');

      const short = await env.cli(['approve', 'pa', '--hash', hashB.slice(0, 3)]);
      assert.equal(short.code, 1, 'a too short prefix is refused');
      assert.match(short.stderr, new RegExp(hashB));
      const rejectStale = await env.cli(['reject', 'pa', '--hash', hashA.slice(0, 12)]);
      assert.equal(rejectStale.code, 1, 'reject is pinned too');

      const servers = await env.servers();
      assert.equal(admitted(servers, 'pa'), 'PendingApproval');
      assert.equal(existsSync(env.pidFile('pa')), false);
      assert.equal(recordOf(env, 'pa'), undefined, 'nothing was decided');

      const ok = await env.cli(['approve', 'pa', '--hash', hashB.slice(0, 12)]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /^server\/pa approved/);
      assert.match(ok.stdout, /--tools=swapped/, 'prints the args it approved');
      assert.match(ok.stdout, new RegExp(`hash:\\s+${hashB}`), 'prints the hash it approved');
      assert.match(ok.stdout, new RegExp(`command:\\s+${JSON.stringify(process.execPath)}`));
      // The repository's env text is part of what was approved; the error above, events and
      // -o json carry none of it.
      assert.match(ok.stdout, /env:\s+TOKEN="hunter2-secret"/, 'prints the env it approved');
      for (const args of [
        ['get', 'events'],
        ['get', 'servers', '-o', 'json'],
      ]) {
        const r = await env.cli(args);
        assert.doesNotMatch(r.stdout, /hunter2/, `mcpctl ${args.join(' ')}: never an env value`);
      }
      assert.deepEqual(recordOf(env, 'pa'), { hash: hashB, status: 'approved' });
      await env.untilServers((m) => isReady(m.get('pa')), 'pa Ready');
    },
  );

  it('CLI: approve without --hash approves the current config and says which', T, async () => {
    env.write(env.mcpJsonPath, { mcpServers: { pb: env.fixture('pb', ['--tools=one']) } });
    await env.startDaemon();
    const hash = (
      await env.untilServers((m) => admitted(m, 'pb') === 'PendingApproval', 'pb pending')
    ).get('pb')!.status.approvalHash!;
    const ok = await env.cli(['approve', 'pb']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, new RegExp(`hash:\\s+${hash}`));
    assert.match(ok.stdout, /args:.*--tools=one/);
    assert.deepEqual(recordOf(env, 'pb'), { hash, status: 'approved' });
    const rejected = await env.cli(['reject', 'pb']);
    assert.equal(rejected.code, 0, rejected.stderr);
    assert.match(rejected.stdout, /^server\/pb rejected/);
    assert.match(rejected.stdout, new RegExp(`hash:\\s+${hash}`));
  });
});

describe('a malformed approvals entry (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'keeps every valid decision, reports the bad entries, and never writes them away',
    T,
    async () => {
      const pa = env.fixture('pa');
      const pb = env.fixture('pb');
      env.write(env.mcpJsonPath, { mcpServers: { pa, pb, pc: env.fixture('pc') } });
      const ws = realpathSync(env.workspace);
      const badRecord = { hash: 42, status: 'approved', note: 'hand-edited' };
      const badElsewhere = { x: { hash: 'h', status: 'maybe' } };
      env.write(env.approvalsPath, {
        [ws]: { pa: { hash: approvalHashOf(pa), status: 'approved' }, pb: badRecord },
        '/elsewhere/project': badElsewhere,
        '/other/project': 'oops',
      });
      await env.startDaemon();
      await env.untilServers(
        (m) => isReady(m.get('pa')) && admitted(m, 'pb') === 'PendingApproval',
        'pa Ready on its kept approval, pb pending',
      );
      const asideFiles = () =>
        readdirSync(path.dirname(env.approvalsPath)).filter((f) => f.includes('.corrupt-'));
      assert.deepEqual(asideFiles(), [], 'nothing was moved aside');

      // Reported where the user looks: the server's events in describe, and get events.
      const describe = await env.cli(['describe', 'server', 'pb']);
      assert.equal(describe.code, 0, describe.stderr);
      assert.match(describe.stdout, /Warning\s+InvalidApproval/);
      assert.match(describe.stdout, /"pb"\.hash: expected a non-empty string, got 42/);
      const events = await env.cli(['get', 'events']);
      assert.match(events.stdout, /InvalidApproval/);

      // A decision about another server keeps the bad entries in the file as they were.
      const approveC = await env.cli(['approve', 'pc']);
      assert.equal(approveC.code, 0, approveC.stderr);
      const afterC = JSON.parse(readFileSync(env.approvalsPath, 'utf8')) as Record<string, unknown>;
      assert.deepEqual(afterC['/elsewhere/project'], badElsewhere);
      assert.equal(afterC['/other/project'], 'oops');
      const here = afterC[ws] as Record<string, { status?: string }>;
      assert.deepEqual(here.pb, badRecord);
      assert.equal(here.pa?.status, 'approved');
      assert.equal(here.pc?.status, 'approved');
      assert.deepEqual(asideFiles(), []);

      // A decision about pb itself replaces its bad record, keeping the old one aside.
      const approveB = await env.cli(['approve', 'pb']);
      assert.equal(approveB.code, 0, approveB.stderr);
      await env.untilServers((m) => isReady(m.get('pb')), 'pb Ready');
      const aside = asideFiles();
      assert.equal(aside.length, 1, 'the replaced bad record was kept in a side file');
      const kept = JSON.parse(
        readFileSync(path.join(path.dirname(env.approvalsPath), aside[0]), 'utf8'),
      ) as Record<string, Record<string, unknown>>;
      assert.deepEqual(kept[ws]?.pb, badRecord);
      const describeB = await env.cli(['describe', 'server', 'pb']);
      assert.ok(describeB.stdout.includes(aside[0]), 'the side file is named to the user');
    },
  );
});

describe('the CLI outside any session folder (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it(
    'says which session it acts on, and refuses approve/reject without --workspace',
    T,
    async () => {
      env.write(env.mcpJsonPath, { mcpServers: { pa: env.fixture('pa') } });
      await env.startDaemon();
      await env.untilServers((m) => admitted(m, 'pa') === 'PendingApproval', 'pa pending');
      const elsewhere = path.join(env.root, 'elsewhere');
      const inside = path.join(env.workspace, 'src', 'deep');
      mkdirSync(elsewhere, { recursive: true });
      mkdirSync(inside, { recursive: true });
      const ws = realpathSync(env.workspace);

      for (const verb of ['approve', 'reject']) {
        const refused = await env.cli([verb, 'pa'], { cwd: elsewhere });
        assert.ok(refused.code === 1 || refused.code === 2, `${verb} refused: ${refused.stdout}`);
        assert.match(refused.stderr, /--workspace/, 'says the fix');
        assert.ok(refused.stderr.includes(realpathSync(elsewhere)), 'names the folder');
      }
      assert.equal(recordOf(env, 'pa'), undefined, 'nothing was decided');
      assert.equal(admitted(await env.servers(), 'pa'), 'PendingApproval');

      const listed = await env.cli(['get', 'servers'], { cwd: elsewhere });
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /pa/);
      assert.ok(
        listed.stderr.includes(
          `acting on session ${ws} (the daemon's; use --workspace DIR to choose)`,
        ),
        `notice on stderr: ${listed.stderr}`,
      );
      const why = await env.cli(['why', 'pa'], { cwd: elsewhere });
      assert.match(why.stderr, /acting on session/);

      // In the session's folder, or below it, nothing to say.
      for (const cwd of [env.workspace, inside]) {
        const here = await env.cli(['get', 'servers'], { cwd });
        assert.equal(here.code, 0, here.stderr);
        assert.doesNotMatch(here.stderr, /acting on session/);
      }

      // Below the workspace, approve acts on it; elsewhere, --workspace names it.
      const fromInside = await env.cli(['reject', 'pa'], { cwd: inside });
      assert.equal(fromInside.code, 0, fromInside.stderr);
      assert.equal(recordOf(env, 'pa')?.status, 'rejected');
      const named = await env.cli(['approve', 'pa', '--workspace', env.workspace], {
        cwd: elsewhere,
      });
      assert.equal(named.code, 0, named.stderr);
      assert.equal(recordOf(env, 'pa')?.status, 'approved');
    },
  );
});

describe('a symlinked approvals file (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  it('is neither written nor read through; approve says why and how to fix it', T, async () => {
    const pa = env.fixture('pa');
    env.write(env.mcpJsonPath, { mcpServers: { pa } });
    // The link's target approves pa: read through the link, pa would start.
    const target = path.join(env.root, 'elsewhere', 'precious.json');
    const original = `${JSON.stringify({
      [realpathSync(env.workspace)]: { pa: { hash: approvalHashOf(pa), status: 'approved' } },
    })}\n`;
    env.write(target, original);
    symlinkSync(target, env.approvalsPath);
    await env.startDaemon();
    await env.untilServers((m) => admitted(m, 'pa') === 'PendingApproval', 'pa pending');
    assert.equal(existsSync(env.pidFile('pa')), false, 'no decision was read through the link');

    const approve = await env.cli(['approve', 'pa']);
    assert.equal(approve.code, 1, `refused: ${approve.stdout}`);
    assert.ok(approve.stderr.includes(env.approvalsPath), 'names the file');
    assert.match(approve.stderr, /symbolic link/);
    assert.ok(approve.stderr.includes(target), 'names where it points');
    assert.match(approve.stderr, /MCPCTL_APPROVALS_PATH/, 'says a fix');
    assert.equal(readFileSync(target, 'utf8'), original, 'the target is untouched');
    assert.ok(lstatSync(env.approvalsPath).isSymbolicLink(), 'the link is left as it was');
    assert.equal(admitted(await env.servers(), 'pa'), 'PendingApproval');
  });
});
