import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  connectionIdOf,
  daemonEnvironment,
  type ApprovalState,
  type DesiredServer,
  type Gating,
  type Scope,
} from '../api/index.js';
import { admit, decideAdmission, type AdmissionContext } from './admission.js';

function server(name: string, scope: Scope, extra: Record<string, unknown> = {}): DesiredServer {
  return {
    name,
    scope,
    source: `/ws/${scope}.json`,
    config: { command: 'node', args: [name], ...extra },
  };
}

function ctx(
  over: Partial<AdmissionContext> & { state?: ApprovalState; session?: boolean } = {},
): AdmissionContext {
  const gating: Gating = over.gating ?? {};
  return {
    trusted: over.trusted ?? true,
    gating,
    approvals: over.approvals ?? {
      state: () => over.state ?? 'pending',
      approvedForSession: () => over.session ?? false,
    },
    sessionId: 's1',
    workspace: '/ws',
    env: over.env ?? daemonEnvironment({ PATH: process.env.PATH }),
  };
}

describe('admission', { timeout: 10_000 }, () => {
  it('checks in order: untrusted, disabled, excluded, not allowed, rejected, pending', () => {
    const s = server('a', 'project', { disabled: true });
    assert.equal(
      decideAdmission(s, ctx({ trusted: false, gating: { excluded: ['a'] } })).reason,
      'UntrustedFolder',
    );
    assert.equal(decideAdmission(s, ctx({ gating: { excluded: ['a'] } })).reason, 'Disabled');
    const p = server('a', 'project');
    assert.equal(
      decideAdmission(p, ctx({ gating: { excluded: ['a'], allowed: [] } })).reason,
      'Excluded',
    );
    assert.equal(
      decideAdmission(p, ctx({ gating: { allowed: [] }, state: 'rejected' })).reason,
      'NotAllowed',
    );
    assert.equal(decideAdmission(p, ctx({ state: 'rejected' })).reason, 'Rejected');
    assert.equal(decideAdmission(p, ctx({ state: 'pending' })).reason, 'PendingApproval');
  });

  it('admits with the right reason', () => {
    assert.equal(decideAdmission(server('a', 'user'), ctx()).reason, 'NotGated');
    assert.equal(decideAdmission(server('a', 'cli'), ctx()).reason, 'NotGated');
    assert.equal(
      decideAdmission(server('a', 'workspace'), ctx({ state: 'approved' })).reason,
      'Approved',
    );
    assert.equal(
      decideAdmission(server('a', 'project'), ctx({ state: 'pending', session: true })).reason,
      'ApprovedForSession',
    );
  });

  it('never consults approvals for non-gated scopes', () => {
    let asked = 0;
    const c = ctx({
      approvals: {
        state: () => {
          asked++;
          return 'rejected';
        },
        approvedForSession: () => {
          asked++;
          return false;
        },
      },
    });
    for (const scope of ['system', 'user', 'cli', 'session'] as const) {
      assert.equal(decideAdmission(server('a', scope), c).admitted, true);
    }
    assert.equal(asked, 0);
  });

  it('mints a ticket only when admitted, bound to the connectionId and session', () => {
    const refused = admit(server('a', 'project'), ctx({ state: 'pending' }));
    assert.equal(refused.admitted, false);
    assert.equal('ticket' in refused, false);
    const s = server('a', 'user', { env: { K: 'v' } });
    const ok = admit(s, ctx());
    assert.ok(ok.admitted && ok.runnable);
    assert.equal(ok.ticket.connectionId, connectionIdOf('a', s.config, '/ws'));
    assert.equal(ok.ticket.sessionId, 's1');
    assert.equal(ok.ticket.cwd, '/ws');
  });

  it('treats allowed [] as deny-all and absent as everyone', () => {
    assert.equal(
      decideAdmission(server('a', 'user'), ctx({ gating: { allowed: [] } })).reason,
      'NotAllowed',
    );
    assert.equal(decideAdmission(server('a', 'user'), ctx({ gating: {} })).admitted, true);
    assert.equal(
      decideAdmission(server('a', 'user'), ctx({ gating: { allowed: ['a'] } })).admitted,
      true,
    );
  });
});
