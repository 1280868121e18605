// Approvals apart by kind: one store, one file, never a decision for the other kind.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  approvalHashOf,
  lspApprovalHashOf,
  type DesiredLanguageServer,
  type DesiredServer,
} from '../api/index.js';
import { tempDir, type TempDir } from '../testing/temp-dir.js';
import { approvalKeyOf, approvalRecordOf } from './kinds.js';
import { approvalVerdictOf, lspApprovalLookup } from './lookup.js';
import { SessionApprovals } from './session-approvals.js';
import { ApprovalStore } from './store.js';
import { languageServerSubjectOf, summaryOf } from './subject.js';

const T = { timeout: 10_000 };
const CONFIG = { command: 'node', args: ['server.js'] };
const mcp: DesiredServer = { name: 'x', scope: 'project', source: '/ws/.mcp.json', config: CONFIG };
const lsp: DesiredLanguageServer = {
  kind: 'LanguageServer',
  name: 'x',
  scope: 'project',
  source: '/ws/.lsp.json',
  config: { ...CONFIG, extensionToLanguage: { '.x': 'x' } },
};
const bare: DesiredLanguageServer = { ...lsp, config: CONFIG };

let dir: TempDir;
before(() => {
  dir = tempDir('mcpctl-approvals-kinds-');
});
after(() => dir.remove());

describe('approvals by kind', T, () => {
  it('an MCP approval of X never approves language server X, and the reverse', async () => {
    const store = await ApprovalStore.open({ path: path.join(dir.path, 'a.json') });
    await store.approve('/ws', 'x', approvalHashOf(CONFIG));
    assert.equal(approvalVerdictOf(store, '/ws', undefined, mcp).state, 'approved');
    assert.equal(approvalVerdictOf(store, '/ws', undefined, lsp).state, 'pending');
    // Same text in both files: the hashes still differ (the kind marker).
    assert.equal(approvalVerdictOf(store, '/ws', undefined, bare).state, 'pending');

    const key = approvalKeyOf(lsp);
    assert.equal(key.record, 'languageserver/x');
    assert.equal(key.hash, lspApprovalHashOf(lsp.config));
    await store.reject('/ws', 'x', approvalHashOf(CONFIG));
    await store.approve('/ws', key.record, key.hash);
    assert.equal(lspApprovalLookup(store, '/ws')(lsp), 'approved');
    assert.equal(approvalVerdictOf(store, '/ws', undefined, mcp).state, 'rejected');
    // A record under the colliding MCP name `languageserver/x` cannot approve it either.
    await store.approve('/ws', 'languageserver/x', approvalHashOf(lsp.config));
    assert.equal(lspApprovalLookup(store, '/ws')(lsp), 'pending');
  });

  it('session approvals are apart too', () => {
    const session = new SessionApprovals();
    session.approve('x', approvalHashOf(CONFIG));
    assert.equal(
      approvalVerdictOf({ getState: () => 'pending' }, '/ws', session, bare).state,
      'pending',
    );
    session.approve(approvalRecordOf('LanguageServer', 'x'), lspApprovalHashOf(bare.config));
    assert.deepEqual(approvalVerdictOf({ getState: () => 'pending' }, '/ws', session, bare), {
      state: 'approved',
      reason: 'ApprovedForSession',
    });
    session.revoke('x');
    assert.equal(
      approvalVerdictOf({ getState: () => 'pending' }, '/ws', session, mcp).state,
      'pending',
    );
    assert.equal(
      approvalVerdictOf({ getState: () => 'pending' }, '/ws', session, bare).state,
      'approved',
    );
  });

  it('a language server subject names its kind and its own hash', () => {
    const subject = languageServerSubjectOf({
      ...lsp,
      config: { ...lsp.config, workspaceFolder: 'pkg' },
    });
    assert.equal(subject.kind, 'LanguageServer');
    assert.equal(subject.hash, lspApprovalHashOf(subject.config));
    const summary = summaryOf(subject);
    assert.equal(summary.kind, 'LanguageServer');
    assert.deepEqual(
      summary.disclosure.fields.map(([label]) => label),
      ['command', 'args', 'cwd'],
    );
  });
});
