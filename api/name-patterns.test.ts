import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNamePattern, matchesNamePattern, namePatternTest } from './name-patterns.js';

describe('gating-list name patterns (Qwen Code globs)', { timeout: 10_000 }, () => {
  it('a plain entry is the name itself, case and all', () => {
    assert.equal(isNamePattern('github'), false);
    assert.equal(matchesNamePattern('github', 'github'), true);
    assert.equal(matchesNamePattern('GitHub', 'github'), false);
    assert.equal(matchesNamePattern('github-2', 'github'), false);
    // Brackets and dots are not special: only * and ? are.
    assert.equal(matchesNamePattern('a', '[a]'), false);
    assert.equal(matchesNamePattern('a.b', 'a.b'), true);
    assert.equal(matchesNamePattern('axb', 'a.b'), false);
  });

  it('* is any run (also none) over the whole name, ? exactly one character', () => {
    const cases: Array<[string, string, boolean]> = [
      ['puppeteer', '*puppeteer*', true],
      ['my-puppeteer-2', '*puppeteer*', true],
      ['puppet', '*puppeteer*', false],
      ['github', 'git?ub', true],
      ['gitub', 'git?ub', false],
      ['github', 'git*', true],
      ['agithub', 'git*', false],
      ['abc', '*', true],
      ['abc', '???', true],
      ['ab', '???', false],
      ['abc', 'a*c', true],
      ['ac', 'a*c', true],
      ['abcd', 'a*c', false],
      ['a*b', 'a*b', true],
    ];
    for (const [name, entry, want] of cases)
      assert.equal(matchesNamePattern(name, entry), want, `${name} ~ ${entry}`);
  });

  it('a hostile pattern does not stall: linear, not backtracking', () => {
    const name = 'a'.repeat(5000);
    const entry = `${'*a'.repeat(200)}b`;
    // A backtracking matcher would not return within the test's timeout; this one takes
    // name × entry steps.
    assert.equal(matchesNamePattern(name, entry), false);
    assert.equal(matchesNamePattern(`${name}b`, entry), true);
  });

  it('a list test: plain names by lookup, patterns each', () => {
    const t = namePatternTest(['a', 'b*', 'c?']);
    assert.deepEqual(['a', 'b', 'bb', 'c', 'cx', 'cxx', 'd'].filter(t), ['a', 'b', 'bb', 'cx']);
    assert.equal(namePatternTest([])('a'), false);
  });
});
