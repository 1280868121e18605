import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceIndex, byPrecedence } from './resource-index.js';

const T = { timeout: 10_000 };

describe('ResourceIndex', T, () => {
  it(
    'routes listed URIs, the higher-precedence server keeping a duplicate, reported once',
    T,
    () => {
      const reports: string[] = [];
      const index = new ResourceIndex((uri, kept, dropped) =>
        reports.push(`${uri} ${kept} ${dropped}`),
      );
      const ranked = [
        { server: 'u', scope: 'user' as const },
        { server: 'c', scope: 'cli' as const },
        { server: 'p', scope: 'project' as const },
      ].sort(byPrecedence);
      assert.deepEqual(
        ranked.map((r) => r.server),
        ['c', 'p', 'u'],
      );
      const uris: Record<string, string[]> = { c: ['x://a'], p: ['x://a', 'x://b'], u: ['x://b'] };
      const listings = ranked.map((r) => ({ server: r.server, uris: uris[r.server] }));
      assert.deepEqual(index.replaceListed(listings), [[true], [false, true], [false]]);
      assert.equal(index.route('x://a'), 'c');
      assert.equal(index.route('x://b'), 'p');
      index.replaceListed(listings);
      assert.deepEqual(reports, ['x://a c p', 'x://b p u']);
    },
  );

  it('routes by template, then by what a tool result linked', T, () => {
    const index = new ResourceIndex(() => undefined);
    index.replaceTemplates([
      { server: 'a', templates: ['demo://text/{id}', '{{{bad'] },
      { server: 'b', templates: ['demo://{kind}/{id}'] },
    ]);
    assert.equal(index.route('demo://text/7'), 'a');
    assert.equal(index.route('demo://blob/7'), 'b');
    assert.equal(index.route('other://x'), undefined);
    index.learn('other://x', 'c');
    assert.equal(index.route('other://x'), 'c');
    assert.equal(index.templateOwner('demo://{kind}/{id}'), 'b');
  });

  it('a listed URI wins over a template and a learned link', T, () => {
    const index = new ResourceIndex(() => undefined);
    index.replaceTemplates([{ server: 'a', templates: ['demo://text/{id}'] }]);
    index.learn('demo://text/1', 'c');
    index.replaceListed([{ server: 'b', uris: ['demo://text/1'] }]);
    assert.equal(index.route('demo://text/1'), 'b');
  });
});
