// Language servers go through the one admission function of MCP servers (DESIGN §5).
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  agentEnvironment,
  daemonEnvironment,
  lspConnectionIdOf,
  type ApprovalState,
  type DesiredLanguageServer,
  type LanguageServerConfig,
  type LanguageServerScope,
} from '../api/index.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { admit, decideAdmission, type AdmissionContext } from './admission.js';

let dir: TempDir;
let ws: string;
before(() => {
  dir = tempDir('mcpctl-admission-lsp-');
  ws = path.join(dir.path, 'ws');
  mkdirSync(path.join(ws, 'pkg'), { recursive: true });
  mkdirSync(path.join(dir.path, 'outside'));
  symlinkSync(path.join(dir.path, 'outside'), path.join(ws, 'escape'));
});
after(() => dir.remove());

function lsp(
  scope: LanguageServerScope,
  config: LanguageServerConfig = {},
  name = 'ts',
): DesiredLanguageServer {
  return {
    kind: 'LanguageServer',
    name,
    scope,
    source: scope === 'project' ? '/ws/.lsp.json' : '/etc/lsp.json',
    config: {
      command: 'node',
      args: ['server.js'],
      extensionToLanguage: { '.ts': 'ts' },
      ...config,
    },
  };
}

function ctx(
  over: {
    state?: ApprovalState;
    session?: boolean;
    allowed?: string[];
    env?: Record<string, string>;
  } = {},
): AdmissionContext<DesiredLanguageServer> {
  return {
    trusted: true,
    gating: over.allowed ? { allowed: over.allowed } : {},
    approvals: {
      state: () => over.state ?? 'pending',
      approvedForSession: () => over.session ?? false,
    },
    sessionId: 's1',
    workspace: ws,
    env: over.env ? agentEnvironment(over.env) : daemonEnvironment({ PATH: process.env.PATH }),
  };
}

describe('admission of language servers', { timeout: 10_000 }, () => {
  it('the same order of checks; messages name a language server', () => {
    const refused = decideAdmission(lsp('project'), ctx());
    assert.equal(refused.reason, 'PendingApproval');
    assert.match(
      !refused.admitted ? refused.message : '',
      /^language server ts from \/ws\/\.lsp\.json needs approval/,
    );
    assert.equal(decideAdmission(lsp('project'), ctx({ state: 'rejected' })).reason, 'Rejected');
    assert.equal(decideAdmission(lsp('project'), ctx({ state: 'approved' })).reason, 'Approved');
    assert.equal(
      decideAdmission(lsp('project'), ctx({ state: 'rejected', session: true })).reason,
      'ApprovedForSession',
    );
    assert.equal(decideAdmission(lsp('cli'), ctx()).reason, 'NotGated');
    assert.equal(decideAdmission(lsp('cli'), ctx({ allowed: [] })).reason, 'NotAllowed');
    assert.equal(decideAdmission(lsp('cli', { disabled: true }), ctx()).reason, 'Disabled');
  });

  it('mints a LanguageServerTicket only when admitted and runnable', () => {
    const pending = admit(lsp('project'), ctx());
    assert.equal(pending.admitted, false);
    assert.equal('ticket' in pending, false);
    const ok = admit(lsp('cli', { workspaceFolder: 'pkg' }), ctx());
    assert.ok(ok.admitted && ok.runnable);
    assert.equal(ok.ticket.workspaceFolder, path.join(ws, 'pkg'));
    assert.equal(ok.ticket.sessionId, 's1');
    assert.equal(
      ok.ticket.connectionId,
      lspConnectionIdOf('ts', ok.ticket.config, path.join(ws, 'pkg'), ok.ticket.env),
    );
  });

  it('expands ${VAR} in the session environment; unset → MissingEnv, no ticket', () => {
    const server = lsp('cli', { env: { TOKEN: '${TOKEN}' } });
    const missing = admit(server, ctx({ env: {} }));
    assert.ok(missing.admitted && !missing.runnable);
    assert.equal(missing.problem, 'MissingEnv');
    assert.deepEqual(missing.missing, ['TOKEN']);
    const ok = admit(server, ctx({ env: { TOKEN: 'sekrit-value' } }));
    assert.ok(ok.admitted && ok.runnable);
    assert.deepEqual(ok.ticket.config.env, { TOKEN: 'sekrit-value' });
    assert.ok(ok.secrets.includes('sekrit-value'));
  });

  it('a workspace folder outside the workspace (also by a symlink) or missing: InvalidConfig', () => {
    for (const workspaceFolder of ['..', '/etc', 'escape', 'nope']) {
      const r = admit(lsp('cli', { workspaceFolder }), ctx());
      assert.ok(r.admitted && !r.runnable, workspaceFolder);
      assert.equal(r.problem, 'InvalidConfig');
      assert.match(r.message, /workspaceFolder/);
    }
    const tcp = admit(lsp('cli', { transport: 'tcp' }), ctx());
    assert.ok(tcp.admitted && !tcp.runnable);
    assert.match(tcp.message, /"transport": "tcp" is not supported/);
  });
});
