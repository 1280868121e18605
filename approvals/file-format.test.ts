import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  emptyContent,
  parseDecisions,
  serializeDecisions,
  withDecision,
  type ApprovalDecisions,
} from './file-format.js';

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

  it('reports a wrong top with its kind: nothing in such a file can be read', () => {
    assert.equal(problemOf('[]'), 'expected an object at the top, got an array');
  });

  it('ignores only the malformed entries, with the path of each, and reads the rest', () => {
    const parsed = parseDecisions(`{
      "/ws": {
        "ok": { "hash": "${H1}", "status": "approved" },
        "bool": true,
        "nohash": { "status": "approved" },
        "maybe": { "hash": "${H1}", "status": "maybe" }
      },
      "/str": "yes",
      "/fine": { "fs": { "hash": "${H2}", "status": "rejected" } }
    }`);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.decisions.get('/ws')?.get('ok'), { hash: H1, status: 'approved' });
    assert.deepEqual([...(parsed.decisions.get('/ws')?.keys() ?? [])], ['ok']);
    assert.deepEqual(parsed.decisions.get('/fine')?.get('fs'), { hash: H2, status: 'rejected' });
    assert.equal(parsed.decisions.has('/str'), false);
    assert.deepEqual(
      parsed.invalid.map((e) => [e.projectKey, e.name, e.problem]),
      [
        ['/ws', 'bool', '"/ws"."bool": expected an object { "hash", "status" }, got a boolean'],
        ['/ws', 'nohash', '"/ws"."nohash".hash: expected a non-empty string, got nothing'],
        ['/ws', 'maybe', '"/ws"."maybe".status: expected "approved" or "rejected", got "maybe"'],
        ['/str', undefined, '"/str": expected an object of server decisions, got a string'],
      ],
    );
  });

  it('a key given twice means its last value, valid or not', () => {
    const parsed = parseDecisions(`{
      "/ws": { "fs": 1, "fs": { "hash": "${H1}", "status": "approved" },
               "web": { "hash": "${H1}", "status": "approved" }, "web": 2 },
      "/p": "bad", "/p": {}
    }`);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.decisions.get('/ws')?.get('fs'), { hash: H1, status: 'approved' });
    assert.equal(parsed.decisions.get('/ws')?.has('web'), false);
    assert.deepEqual(
      parsed.invalid.map((e) => [e.projectKey, e.name]),
      [['/ws', 'web']],
    );
  });
});

describe('serializeDecisions', { timeout: 10_000 }, () => {
  it('round-trips through parseDecisions, odd names included', () => {
    let content = emptyContent();
    content = withDecision(content, '/ws/a', '__proto__', { hash: H1, status: 'approved' }).content;
    content = withDecision(content, '/ws/a', 'toString', { hash: H2, status: 'rejected' }).content;
    content = withDecision(content, '/ws/b', 'fs', { hash: H1, status: 'rejected' }).content;
    const text = serializeDecisions(content);
    assert.deepEqual(decisionsOf(text), content.decisions);
    // Plain JSON readers (Qwen's) see the documented shape with an own "__proto__" key.
    const plain = JSON.parse(text) as Record<string, Record<string, unknown>>;
    assert.ok(Object.hasOwn(plain['/ws/a'], '__proto__'));
    assert.deepEqual(Object.keys(plain).sort(), ['/ws/a', '/ws/b']);
  });

  it('writes malformed entries back as they were read', () => {
    const bad = {
      '/ws': {
        ok: { hash: H1, status: 'approved' },
        odd: { hash: 7, __proto__x: [1, { a: null }] },
      },
      '/str': 'yes',
      '/p': { x: { status: 'maybe' } },
    };
    const parsed = parseDecisions(JSON.stringify(bad));
    assert.ok(parsed.ok);
    assert.equal(parsed.invalid.length, 3);
    assert.deepEqual(JSON.parse(serializeDecisions(parsed)), bad);
  });

  it('keeps a raw "__proto__" key of a malformed entry as an ordinary key', () => {
    const text = `{ "/ws": { "odd": { "__proto__": { "polluted": true }, "hash": 1 } } }`;
    const parsed = parseDecisions(text);
    assert.ok(parsed.ok);
    const plain = JSON.parse(serializeDecisions(parsed)) as Record<string, Record<string, object>>;
    assert.ok(Object.hasOwn(plain['/ws']?.odd ?? {}, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('withDecision', { timeout: 10_000 }, () => {
  it('returns a copy with one record set and leaves the input untouched', () => {
    const before = withDecision(emptyContent(), '/ws', 'fs', {
      hash: H1,
      status: 'approved',
    }).content;
    const after = withDecision(before, '/ws', 'web', { hash: H2, status: 'rejected' }).content;
    assert.deepEqual([...(before.decisions.get('/ws')?.keys() ?? [])], ['fs']);
    assert.deepEqual([...(after.decisions.get('/ws')?.keys() ?? [])], ['fs', 'web']);
    const replaced = withDecision(after, '/ws', 'fs', { hash: H2, status: 'rejected' }).content;
    assert.deepEqual(replaced.decisions.get('/ws')?.get('fs'), { hash: H2, status: 'rejected' });
    assert.deepEqual(after.decisions.get('/ws')?.get('fs'), { hash: H1, status: 'approved' });
  });

  it('hands back the malformed entry it replaces, and only that one', () => {
    const parsed = parseDecisions(
      JSON.stringify({ '/ws': { fs: 1, web: 2 }, '/p': 'bad', '/q': [] }),
    );
    assert.ok(parsed.ok);
    const record = { hash: H1, status: 'approved' } as const;
    const one = withDecision(parsed, '/ws', 'fs', record);
    assert.deepEqual(
      one.displaced.map((e) => [e.projectKey, e.name]),
      [['/ws', 'fs']],
    );
    assert.equal(one.content.invalid.length, 3);
    const whole = withDecision(one.content, '/p', 'x', record);
    assert.deepEqual(
      whole.displaced.map((e) => [e.projectKey, e.name, e.raw]),
      [['/p', undefined, 'bad']],
    );
    assert.deepEqual(JSON.parse(serializeDecisions(whole.content)), {
      '/ws': { fs: record, web: 2 },
      '/p': { x: record },
      '/q': [],
    });
  });
});
