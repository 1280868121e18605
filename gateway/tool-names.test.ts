import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RouteTable } from './routes.js';
import { MAX_TOOL_NAME, parseQualifiedName, qualifiedName } from './tool-names.js';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;

/** Names built from the pieces that matter: separators, underscores, odd and unicode characters. */
const piece = fc.oneof(
  fc.constantFrom('_', '__', '___', '-', 'x', 'y', 'z', 'a1', '.', ' ', '/', 'é', '日本', '😀'),
  fc.constantFrom('\ud800', '\udc00', '\u0000', '\u001b'), // lone surrogates, control characters
  fc.string({ unit: 'binary', maxLength: 3 }),
);
const name = fc.string({ unit: piece, maxLength: 12 });
const longName = fc.string({ unit: piece, minLength: 20, maxLength: 60 });
const anyName = fc.oneof(name, longName, fc.string());
/** Few letters and many underscores: pairs whose naive joins collide often. */
const tiny = fc.string({ unit: fc.constantFrom('x', 'y', '_', '.'), maxLength: 6 });
const pair = fc.oneof(fc.tuple(tiny, tiny), fc.tuple(anyName, anyName));

describe('tool names', { timeout: 60_000 }, () => {
  it('keeps server__tool for plain names', () => {
    assert.equal(qualifiedName('fs', 'read_file'), 'fs__read_file');
    assert.equal(qualifiedName('my-server', 'a-b_c'), 'my-server__a-b_c');
    assert.equal(qualifiedName('fs_local', '_hidden'), 'fs_local___hidden');
    assert.deepEqual(parseQualifiedName('fs_local___hidden'), {
      server: 'fs_local',
      tool: '_hidden',
    });
  });

  it('gives x + y__z and x__y + z different names, each decoding to its own pair', () => {
    const a = qualifiedName('x', 'y__z');
    const b = qualifiedName('x__y', 'z');
    assert.equal(a, 'x__y__z');
    assert.notEqual(a, b);
    assert.match(b, /^x_y_z_[0-9a-f]{16}$/);
    assert.deepEqual(parseQualifiedName(a), { server: 'x', tool: 'y__z' });
    assert.equal(parseQualifiedName(b), undefined, 'a hashed name is not decoded');
    // Every other way a separator can hide in a server name is hashed too.
    for (const server of ['x_', '_x', 'x__', 'x.y', ''])
      assert.equal(qualifiedName(server, 'z').includes('__'), false, server);
  });

  it('shortens long names stably and keeps them apart', () => {
    const s = 'a-very-long-server-name-for-testing';
    const long = qualifiedName(s, 'and_a_very_long_tool_name_that_goes_on');
    assert.ok(long.length <= MAX_TOOL_NAME);
    assert.match(long, VALID);
    assert.equal(long, qualifiedName(s, 'and_a_very_long_tool_name_that_goes_on'));
    assert.notEqual(long, qualifiedName(s, 'and_a_very_long_tool_name_that_goes_0n'));
    assert.notEqual(qualifiedName('my.server', 'x'), qualifiedName('my_server', 'x'));
    // UTF-8 folds lone surrogates into U+FFFD; the names must not.
    assert.notEqual(qualifiedName('\ud800', 't'), qualifiedName('\ud801', 't'));
  });

  it('is injective over random pairs (property)', () => {
    const injective = (pairs: [string, string][]) => {
      const names = new Map<string, [string, string]>();
      for (const [s, t] of pairs) {
        const n = qualifiedName(s, t);
        const other = names.get(n);
        assert.equal(other, undefined, `${JSON.stringify([[s, t], other])} share ${n}`);
        names.set(n, [s, t]);
      }
    };
    const unique = (of: fc.Arbitrary<[string, string]>) =>
      fc.uniqueArray(of, { selector: (p) => JSON.stringify(p), maxLength: 40 });
    // Dense in separators, where a naive join collides; then anything at all.
    fc.assert(fc.property(unique(fc.tuple(tiny, tiny)), injective), { numRuns: 2000 });
    fc.assert(fc.property(unique(pair), injective), { numRuns: 2000 });
  });

  it('never confuses where the separator is (property)', () => {
    fc.assert(
      fc.property(name, name, name, (a, b, c) => {
        assert.notEqual(qualifiedName(a, `${b}__${c}`), qualifiedName(`${a}__${b}`, c));
        assert.notEqual(qualifiedName(a, `_${b}`), qualifiedName(`${a}_`, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('is always a valid MCP tool name, and readable names decode to their pair (property)', () => {
    fc.assert(
      fc.property(pair, ([s, t]) => {
        const n = qualifiedName(s, t);
        assert.match(n, VALID);
        assert.equal(qualifiedName(s, t), n, 'stable');
        const parsed = parseQualifiedName(n);
        if (n.includes('__')) assert.deepEqual(parsed, { server: s, tool: t });
        else assert.equal(parsed, undefined);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('route table', { timeout: 10_000 }, () => {
  it('names a pair the same whichever other servers are listed', () => {
    const table = new RouteTable(() => undefined);
    const [[alone]] = table.replace([{ server: 'x__y', names: ['z'] }]);
    const both = table.replace([
      { server: 'x', names: ['y__z'] },
      { server: 'x__y', names: ['z'] },
    ]);
    assert.equal(both[1][0], alone);
    assert.deepEqual(table.get(both[0][0] ?? ''), { server: 'x', name: 'y__z' });
    assert.deepEqual(table.get(alone ?? ''), { server: 'x__y', name: 'z' });
  });

  it('offers a tool listed twice once, and says so once', () => {
    const reports: string[] = [];
    const table = new RouteTable((m) => reports.push(m));
    const entries = [{ server: 'fs', names: ['read', 'read'] }];
    assert.deepEqual(table.replace(entries), [['fs__read', undefined]]);
    table.replace(entries);
    assert.equal(reports.length, 1);
    assert.match(
      reports[0],
      /"read" of server "fs" cannot be offered as fs__read: .* more than once/,
    );
  });

  it('remembers the server of names that left the listing, hashed ones too', () => {
    const table = new RouteTable(() => undefined);
    const [[hashed], [plain]] = table.replace([
      { server: 'my.server', names: ['t'] },
      { server: 'fs', names: ['read'] },
    ]);
    table.replace([]);
    assert.equal(table.get(hashed ?? ''), undefined);
    assert.equal(table.formerServer(hashed ?? ''), 'my.server');
    assert.equal(table.formerServer(plain ?? ''), 'fs');
    assert.equal(table.formerServer('never__listed'), 'never');
    assert.equal(table.formerServer('nothing_0123456789abcdef'), undefined);
  });
});
