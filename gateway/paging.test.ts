import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Pager } from './paging.js';

const T = { timeout: 10_000 };
const items = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('Pager', T, () => {
  it('pages a list of 250 by 100 and sees one snapshot throughout', T, async () => {
    const pager = new Pager(100);
    let list = items(250);
    const build = () => Promise.resolve(list);
    const first = await pager.page('tools', undefined, build);
    assert.deepEqual(first.items, items(100));
    assert.ok(first.nextCursor);
    list = items(3); // the servers changed between pages: the listing in progress does not
    const second = await pager.page('tools', first.nextCursor, build);
    assert.deepEqual(second.items, items(200).slice(100));
    const third = await pager.page('tools', second.nextCursor, build);
    assert.deepEqual(third.items, items(250).slice(200));
    assert.equal(third.nextCursor, undefined);
  });

  it('a list that fits one page has no cursor', T, async () => {
    const page = await new Pager(100).page('tools', undefined, () => Promise.resolve(items(100)));
    assert.equal(page.items.length, 100);
    assert.equal(page.nextCursor, undefined);
  });

  it('refuses forged, foreign, finished and stale cursors with InvalidParams', T, async () => {
    const pager = new Pager(10, 2);
    const build = () => Promise.resolve(items(30));
    const a = await pager.page('tools', undefined, build);
    const bad = [
      'nonsense',
      `${a.nextCursor!.split('.')[0]}.-5`,
      `${a.nextCursor!.split('.')[0]}.999`,
      `${a.nextCursor!.split('.')[0]}.x`,
      '.10',
    ];
    for (const cursor of bad)
      await assert.rejects(pager.page('tools', cursor, build), (err: unknown) => {
        assert.ok(err instanceof McpError);
        assert.equal(err.code, -32602);
        assert.match(err.message, /list again without a cursor/);
        return true;
      });
    // A cursor of one list is not good for another.
    await assert.rejects(pager.page('prompts', a.nextCursor, build), McpError);
    // Only `maxSnapshots` listings are kept: the oldest goes.
    await pager.page('tools', undefined, build);
    await pager.page('tools', undefined, build);
    await assert.rejects(pager.page('tools', a.nextCursor, build), McpError);
  });

  it('the last page forgets its snapshot', T, async () => {
    const pager = new Pager(10);
    const build = () => Promise.resolve(items(20));
    const a = await pager.page('tools', undefined, build);
    await pager.page('tools', a.nextCursor, build);
    await assert.rejects(pager.page('tools', a.nextCursor, build), McpError);
  });
});
