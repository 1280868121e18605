import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Registry } from './registry.js';
import { toolFilterOf } from './tool-filter.js';

const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });

describe('registry', { timeout: 10_000 }, () => {
  it('notifies only when visible content changes', () => {
    const r = new Registry();
    const seen: string[] = [];
    const off = r.onChange((n) => seen.push(n));
    r.set('a', { key: 'k1', connectionId: 'a::1', tools: [tool('x')], prompts: [] });
    r.set('a', { key: 'k1', connectionId: 'a::1', tools: [tool('x')], prompts: [] });
    r.set('a', { key: 'k1', connectionId: 'a::1', tools: [tool('x'), tool('y')], prompts: [] });
    r.delete('a');
    r.delete('a');
    off();
    r.set('b', { key: 'k2', connectionId: 'b::1', tools: [], prompts: [] });
    assert.deepEqual(seen, ['a', 'a', 'a']);
    assert.equal(r.get('a'), undefined);
    assert.equal(r.get('b')?.key, 'k2');
  });

  it('replaces an entry in one step (no moment without tools)', () => {
    const r = new Registry();
    r.set('a', { key: 'old', connectionId: 'a::1', tools: [tool('x')], prompts: [] });
    const observed: number[] = [];
    r.onChange(() => observed.push(r.get('a')?.tools.length ?? 0));
    r.set('a', { key: 'new', connectionId: 'a::2', tools: [tool('x')], prompts: [] });
    assert.deepEqual(observed, [1]);
    assert.equal(r.get('a')?.key, 'new');
  });
});

describe('tool filter', { timeout: 10_000 }, () => {
  it('applies includeTools, and excludeTools wins', () => {
    const keep = toolFilterOf({
      command: 'x',
      includeTools: ['a', 'b(path)'],
      excludeTools: ['b'],
    });
    assert.deepEqual(['a', 'b', 'c'].filter(keep), ['a']);
    const all = toolFilterOf({ command: 'x' });
    assert.deepEqual(['a', 'b'].filter(all), ['a', 'b']);
    const none = toolFilterOf({ command: 'x', includeTools: [] });
    assert.deepEqual(['a'].filter(none), []);
  });
});
