/**
 * e2e: the approval gate as the CLI drives it — a `.mcp.json` server waits for approval and
 * starts no process until approved; reject keeps it down; editing it makes it pending again.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { McpServer } from '../api/index.js';
import { TestEnv, condition, isAlive, isReady } from './harness.js';
import { until } from '../testing/until.js';

const T = { timeout: 90_000 };

interface WhyJson {
  name: string;
  reason: string;
  message: string;
  action: string;
}

describe('mcpctl approve / reject (e2e)', () => {
  let env: TestEnv;
  beforeEach(() => {
    env = new TestEnv();
  });
  afterEach(async () => {
    await env.cleanup();
  });

  const admittedReason = (m: Map<string, McpServer>, name: string) =>
    condition(m.get(name), 'Admitted')?.reason;

  it(
    'pending → nothing started; approve → Ready; reject → down; edit → pending again',
    T,
    async () => {
      env.write(env.userSettingsPath, { mcpServers: { memory: env.memoryServer() } });
      env.write(env.mcpJsonPath, { mcpServers: { proj: env.fixture('proj') } });
      await env.startDaemon();
      const pending = await env.untilServers(
        (m) => admittedReason(m, 'proj') === 'PendingApproval' && isReady(m.get('memory')),
        'proj pending, memory Ready',
      );
      const proj = pending.get('proj')!;
      assert.equal(proj.metadata.annotations?.['mcpctl.dev/scope'], 'project');
      assert.equal(condition(proj, 'Ready')?.reason, 'NotAdmitted');
      assert.equal(proj.status.pid, undefined);
      assert.equal(
        existsSync(env.pidFile('proj')),
        false,
        'no process was started for a pending server',
      );
      const whyPending = await env.json<WhyJson>(['why', 'proj', '-o', 'json']);
      assert.equal(whyPending.reason, 'PendingApproval');
      assert.match(whyPending.action, /mcpctl approve proj/);
      const whyText = await env.cli(['why', 'proj']);
      assert.match(whyText.stdout, /^PendingApproval: run 'mcpctl approve proj'/);
      const events = await env.cli(['get', 'events']);
      assert.match(events.stdout, /PendingApproval\s+server\/proj/);

      const approve = await env.cli(['approve', 'proj']);
      assert.equal(approve.code, 0, approve.stderr);
      assert.match(approve.stdout, /^server\/proj approved/);
      const approved = await env.untilServers((m) => isReady(m.get('proj')), 'proj Ready');
      const pid = approved.get('proj')!.status.pid!;
      assert.equal(Number(readFileSync(env.pidFile('proj'), 'utf8')), pid);
      assert.equal(admittedReason(approved, 'proj'), 'Approved');
      const file = () =>
        (
          JSON.parse(readFileSync(env.approvalsPath, 'utf8')) as Record<
            string,
            Record<string, unknown>
          >
        )[realpathSync(env.workspace)]?.proj;
      assert.deepEqual(file(), {
        hash: approved.get('proj')!.status.approvalHash,
        status: 'approved',
      });
      assert.equal((await env.json<WhyJson>(['why', 'proj', '-o', 'json'])).reason, 'Available');

      const reject = await env.cli(['reject', 'proj']);
      assert.equal(reject.code, 0, reject.stderr);
      const rejected = await env.untilServers(
        (m) => admittedReason(m, 'proj') === 'Rejected',
        'proj rejected',
      );
      assert.equal(rejected.get('proj')!.status.pid, undefined);
      await until('the rejected server process to end', () => !isAlive(pid));
      assert.equal((await env.json<WhyJson>(['why', 'proj', '-o', 'json'])).reason, 'Rejected');

      // Rejected stays down, through a reload too.
      const reload = await env.cli(['reload']);
      assert.equal(reload.code, 0, reload.stderr);
      assert.match(reload.stdout, /! blocked proj \(Rejected\)/);
      assert.equal(admittedReason(await env.servers(), 'proj'), 'Rejected');

      // Editing the rejected server's config makes it promptable again.
      env.write(env.mcpJsonPath, {
        mcpServers: { proj: env.fixture('proj', ['--tools=changed']) },
      });
      await env.untilServers(
        (m) => admittedReason(m, 'proj') === 'PendingApproval',
        'proj pending after its edit',
      );
      assert.equal(
        (await env.json<WhyJson>(['why', 'proj', '-o', 'json'])).reason,
        'PendingApproval',
      );
      const pendingEvents = await env.cli(['get', 'events', '-o', 'json']);
      const prompts = (
        JSON.parse(pendingEvents.stdout) as {
          items: Array<{ reason: string; involvedObject: string; count: number }>;
        }
      ).items.filter((e) => e.reason === 'PendingApproval' && e.involvedObject === 'server/proj');
      assert.ok(
        prompts.reduce((n, e) => n + e.count, 0) >= 2,
        'a PendingApproval event for the edited config',
      );

      // Approve for this session only: it runs, and nothing is written.
      const before = file();
      const session = await env.cli(['approve', 'proj', '--session']);
      assert.equal(session.code, 0, session.stderr);
      assert.match(session.stdout, /approved for this session/);
      const running = await env.untilServers(
        (m) => isReady(m.get('proj')),
        'proj Ready for this session',
      );
      assert.equal(admittedReason(running, 'proj'), 'ApprovedForSession');
      assert.deepEqual(file(), before, 'approve --session persisted nothing');
    },
  );

  it('workspace settings servers are gated too; approve names are checked', T, async () => {
    env.write(env.workspaceSettingsPath, { mcpServers: { wsrv: env.fixture('wsrv') } });
    await env.startDaemon();
    await env.untilServers((m) => admittedReason(m, 'wsrv') === 'PendingApproval', 'wsrv pending');
    assert.equal(existsSync(env.pidFile('wsrv')), false);
    const typo = await env.cli(['approve', 'wsvr']);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /no server named wsvr.*did you mean wsrv/);
    const ok = await env.cli(['approve', 'wsrv']);
    assert.equal(ok.code, 0, ok.stderr);
    await env.untilServers((m) => isReady(m.get('wsrv')), 'wsrv Ready');
  });
});
