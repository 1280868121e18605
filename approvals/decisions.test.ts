import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  emptyDecisions,
  parseDecisions,
  serializeDecisions,
  withDecision,
  type ApprovalDecisions,
} from './decisions.js';

const H1 = 'a'.repeat(64);
const H2 = 'b'.repeat(64);

function decisionsOf(text: string): ApprovalDecisions {
  const parsed = parseDecisions(text);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.problem);
  return parsed.decisions;
}

function problemOf(text: string): string {
  const parsed = parseDecisions(text);
  assert.equal(parsed.ok, false, 'expected the text to be rejected');
  return parsed.ok ? '' : parsed.problem;
}

describe('parseDecisions', { timeout: 10_000 }, () => {
  it('reads the documented shape, tolerating comments and trailing commas', () => {
    const decisions = decisionsOf(`{
      // edited by hand
      "/ws/a": {
        "fs": { "hash": "${H1}", "status": "approved" },
        /* block comment */
        "web": { "hash": "${H2}", "status": "rejected", },
      },
    }`);
    assert.deepEqual(decisions.get('/ws/a')?.get('fs'), { hash: H1, status: 'approved' });
    assert.deepEqual(decisions.get('/ws/a')?.get('web'), { hash: H2, status: 'rejected' });
    assert.equal(decisions.size, 1);
  });

  it('treats empty, blank and comment-only content as no decisions, not as corruption', () => {
    for (const text of ['', '  \n', '// nothing yet\n', '\uFEFF{}']) {
      assert.equal(decisionsOf(text).size, 0, JSON.stringify(text));
    }
  });

  it('keeps "__proto__" and "constructor" as ordinary names and does not pollute prototypes', () => {
    const decisions = decisionsOf(`{
      "/ws": {
        "__proto__": { "hash": "${H1}", "status": "approved" },
        "constructor": { "hash": "${H2}", "status": "rejected" }
      }
    }`);
    const servers = decisions.get('/ws');
    assert.deepEqual(servers?.get('__proto__'), { hash: H1, status: 'approved' });
    assert.deepEqual(servers?.get('constructor'), { hash: H2, status: 'rejected' });
    assert.equal(({} as Record<string, unknown>).hash, undefined);
    assert.equal(({} as Record<string, unknown>).status, undefined);
  });

  it('reports syntax errors with line and column', () => {
    assert.equal(problemOf('{\n  "/ws": {\n    "fs": }\n}'), 'ValueExpected at line 3, column 11');
    assert.equal(problemOf('{ "/ws": {} } {}'), 'EndOfFileExpected at line 1, column 15');
    assert.equal(problemOf('{ "/ws": {} } trailing'), 'InvalidSymbol at line 1, column 15');
  });

  it('reports a wrong shape with the path of the offending value', () => {
    assert.equal(problemOf('[]'), 'expected an object at the top, got an array');
    assert.equal(
      problemOf('{ "/ws": "yes" }'),
      '"/ws": expected an object of server decisions, got a string',
    );
    assert.equal(
      problemOf('{ "/ws": { "fs": true } }'),
      '"/ws"."fs": expected an object { "hash", "status" }, got a boolean',
    );
    assert.equal(
      problemOf('{ "/ws": { "fs": { "status": "approved" } } }'),
      '"/ws"."fs".hash: expected a non-empty string, got nothing',
    );
    assert.equal(
      problemOf(`{ "/ws": { "fs": { "hash": "${H1}", "status": "maybe" } } }`),
      '"/ws"."fs".status: expected "approved" or "rejected", got "maybe"',
    );
  });
});

describe('serializeDecisions', { timeout: 10_000 }, () => {
  it('round-trips through parseDecisions, odd names included', () => {
    let decisions = emptyDecisions();
    decisions = withDecision(decisions, '/ws/a', '__proto__', { hash: H1, status: 'approved' });
    decisions = withDecision(decisions, '/ws/a', 'toString', { hash: H2, status: 'rejected' });
    decisions = withDecision(decisions, '/ws/b', 'fs', { hash: H1, status: 'rejected' });
    const text = serializeDecisions(decisions);
    assert.deepEqual(decisionsOf(text), decisions);
    // Plain JSON readers (Qwen's) see the documented shape with an own "__proto__" key.
    const plain = JSON.parse(text) as Record<string, Record<string, unknown>>;
    assert.ok(Object.hasOwn(plain['/ws/a'], '__proto__'));
    assert.deepEqual(Object.keys(plain).sort(), ['/ws/a', '/ws/b']);
  });
});

describe('withDecision', { timeout: 10_000 }, () => {
  it('returns a copy with one record set and leaves the input untouched', () => {
    const before = withDecision(emptyDecisions(), '/ws', 'fs', { hash: H1, status: 'approved' });
    const after = withDecision(before, '/ws', 'web', { hash: H2, status: 'rejected' });
    assert.deepEqual([...(before.get('/ws')?.keys() ?? [])], ['fs']);
    assert.deepEqual([...(after.get('/ws')?.keys() ?? [])], ['fs', 'web']);
    const replaced = withDecision(after, '/ws', 'fs', { hash: H2, status: 'rejected' });
    assert.deepEqual(replaced.get('/ws')?.get('fs'), { hash: H2, status: 'rejected' });
    assert.deepEqual(after.get('/ws')?.get('fs'), { hash: H1, status: 'approved' });
  });
});
