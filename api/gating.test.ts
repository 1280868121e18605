import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DesiredServer, DesiredServers } from './assemble.js';
import {
  computeGating,
  effectiveAllowed,
  isExcluded,
  isInAllowlist,
  promptableServers,
  type ApprovalLookup,
} from './gating.js';
import type { ApprovalState, Scope } from './scope.js';

function servers(...list: Array<[string, Scope]>): DesiredServers {
  const out: Record<string, DesiredServer> = {};
  for (const [name, scope] of list) {
    out[name] = { name, scope, config: { command: name }, source: `/src/${scope}` };
  }
  return out;
}

function lookupFrom(states: Record<string, ApprovalState>): ApprovalLookup {
  return (s) => states[s.name] ?? 'pending';
}

const noApprovals: ApprovalLookup = () => 'pending';

describe('ceiling matrix (DESIGN §4 rule 4)', { timeout: 10_000 }, () => {
  const cases: Array<{
    what: string;
    settings: string[] | undefined;
    ceiling: string[] | undefined;
    want: string[] | undefined;
  }> = [
    {
      what: 'flag + settings → intersection',
      settings: ['a', 'b', 'x'],
      ceiling: ['a', 'b', 'c'],
      want: ['a', 'b'],
    },
    { what: 'flag alone → flag', settings: undefined, ceiling: ['a', 'b'], want: ['a', 'b'] },
    {
      what: 'settings wider than flag → capped',
      settings: ['a', 'b', 'c', 'd'],
      ceiling: ['a', 'b'],
      want: ['a', 'b'],
    },
    { what: 'narrowing inside flag works', settings: ['b'], ceiling: ['a', 'b', 'c'], want: ['b'] },
    {
      what: 'no flag → settings unbounded',
      settings: ['a', 'z'],
      ceiling: undefined,
      want: ['a', 'z'],
    },
    {
      what: 'no flag, no settings → everyone',
      settings: undefined,
      ceiling: undefined,
      want: undefined,
    },
    { what: 'mcp.allowed [] → deny-all', settings: [], ceiling: undefined, want: [] },
    { what: 'mcp.allowed [] under a flag → deny-all', settings: [], ceiling: ['a'], want: [] },
    { what: 'disjoint settings and flag → deny-all', settings: ['x'], ceiling: ['a'], want: [] },
  ];

  for (const c of cases) {
    it(c.what, () => {
      assert.deepEqual(effectiveAllowed(c.settings, c.ceiling), c.want);
      const gating = computeGating({
        settings: c.settings === undefined ? {} : { allowed: c.settings },
        servers: servers(),
        ...(c.ceiling === undefined ? {} : { ceiling: c.ceiling }),
        approvals: noApprovals,
      });
      assert.deepEqual(gating.allowed, c.want);
      assert.equal('allowed' in gating, c.want !== undefined, 'absent allowlist stays absent');
    });
  }

  it('returns a copy the caller cannot use to change the inputs', () => {
    const settings = ['a'];
    const out = effectiveAllowed(settings, undefined);
    out?.push('b');
    assert.deepEqual(settings, ['a']);
  });
});

describe('computeGating', { timeout: 10_000 }, () => {
  it('copies excluded from settings and defaults it to []', () => {
    const list = servers(['a', 'user']);
    assert.deepEqual(
      computeGating({ settings: { excluded: ['a'] }, servers: list, approvals: noApprovals })
        .excluded,
      ['a'],
    );
    assert.deepEqual(
      computeGating({ settings: undefined, servers: list, approvals: noApprovals }).excluded,
      [],
    );
  });

  it('puts every gated server that is not approved into pending, rejected included', () => {
    const list = servers(
      ['u', 'user'],
      ['sys', 'system'],
      ['cli', 'cli'],
      ['sess', 'session'],
      ['ok', 'project'],
      ['no', 'project'],
      ['ask', 'workspace'],
    );
    const approvals = lookupFrom({ ok: 'approved', no: 'rejected' });
    const gating = computeGating({ settings: undefined, servers: list, approvals });
    assert.deepEqual(gating.pending, ['ask', 'no']);
    assert.deepEqual(promptableServers(list, approvals), ['ask']);
  });

  it('never asks about non-gated servers', () => {
    const asked: string[] = [];
    const list = servers(['u', 'user'], ['p', 'project']);
    computeGating({
      settings: undefined,
      servers: list,
      approvals: (s) => {
        asked.push(s.name);
        return 'pending';
      },
    });
    assert.deepEqual(asked, ['p']);
  });
});

describe('isExcluded / isInAllowlist', { timeout: 10_000 }, () => {
  it('reads the gating lists with absent allowed = everyone and [] = no one', () => {
    assert.equal(isExcluded('a', { excluded: ['a'] }), true);
    assert.equal(isExcluded('a', {}), false);
    assert.equal(isInAllowlist('a', {}), true);
    assert.equal(isInAllowlist('a', { allowed: [] }), false);
    assert.equal(isInAllowlist('a', { allowed: ['a'] }), true);
  });
});

describe('patterns in the gating lists', { timeout: 10_000 }, () => {
  const list = servers(
    ['github', 'user'],
    ['gitlab', 'user'],
    ['fs', 'user'],
    ['pup-1', 'project'],
  );
  it('an excluded pattern excludes each configured server it matches, plain entries stay', () => {
    const g = computeGating({
      settings: { excluded: ['git*', 'gone'] },
      servers: list,
      approvals: noApprovals,
    });
    assert.deepEqual(g.excluded, ['gone', 'github', 'gitlab']);
    assert.equal(isExcluded('github', g), true);
    assert.equal(isExcluded('fs', g), false);
  });
  it('ceiling and settings patterns: a server is allowed only when both lists match it', () => {
    const g = computeGating({
      settings: { allowed: ['git*', 'fs'] },
      ceiling: ['*hub', 'fs'],
      servers: list,
      approvals: noApprovals,
    });
    assert.deepEqual(g.allowed, ['fs', 'github']);
    assert.equal(isInAllowlist('gitlab', g), false);
    assert.equal(isInAllowlist('pup-1', g), false);
  });
  it('a pattern that matches nothing configured is deny-all, not absent', () => {
    const g = computeGating({
      settings: { allowed: ['zzz*'] },
      servers: list,
      approvals: noApprovals,
    });
    assert.deepEqual(g.allowed, []);
  });
});
