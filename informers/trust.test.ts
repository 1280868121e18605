import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isWithin,
  isWorkspaceTrusted,
  resolveTrust,
  validateTrustRules,
  type TrustRule,
} from './trust.js';

const rules = (map: Record<string, TrustRule['level']>): TrustRule[] =>
  validateTrustRules(map).value.slice();

test('TRUST_FOLDER trusts the folder and everything below it', { timeout: 5000 }, () => {
  const r = rules({ '/home/u/code': 'TRUST_FOLDER' });
  assert.equal(resolveTrust(r, '/home/u/code').trusted, true);
  assert.equal(resolveTrust(r, '/home/u/code/a/b').trusted, true);
  assert.equal(resolveTrust(r, '/home/u').trusted, false);
  assert.equal(resolveTrust(r, '/home/u/codeshop').trusted, false, 'whole segments only');
});

test('TRUST_PARENT on a path trusts its parent (and siblings below it)', { timeout: 5000 }, () => {
  const r = rules({ '/home/u/code/proj': 'TRUST_PARENT' });
  assert.equal(resolveTrust(r, '/home/u/code').trusted, true);
  assert.equal(resolveTrust(r, '/home/u/code/other').trusted, true);
  assert.equal(resolveTrust(r, '/home/u').trusted, false);
});

test('the most specific rule wins, either way', { timeout: 5000 }, () => {
  const r = rules({
    '/home/u': 'TRUST_FOLDER',
    '/home/u/secret': 'DO_NOT_TRUST',
    '/home/u/secret/ok': 'TRUST_FOLDER',
  });
  assert.equal(resolveTrust(r, '/home/u/code').trusted, true);
  assert.equal(resolveTrust(r, '/home/u/secret').trusted, false);
  assert.equal(resolveTrust(r, '/home/u/secret/x').trusted, false);
  assert.equal(resolveTrust(r, '/home/u/secret/ok/y').trusted, true);
  assert.equal(resolveTrust(r, '/home/u/secret/ok/y').rule?.path, '/home/u/secret/ok');
});

test('on a tie distrust wins; no matching rule is untrusted', { timeout: 5000 }, () => {
  // TRUST_PARENT on /a/b is effectively /a, the same depth as DO_NOT_TRUST on /a.
  const r = rules({ '/a/b': 'TRUST_PARENT', '/a': 'DO_NOT_TRUST' });
  assert.equal(resolveTrust(r, '/a/c').trusted, false);
  assert.equal(resolveTrust([], '/anything').trusted, false);
});

test('folder trust disabled trusts every workspace', { timeout: 5000 }, () => {
  const r = rules({ '/w': 'DO_NOT_TRUST' });
  assert.equal(isWorkspaceTrusted(false, r, '/w'), true);
  assert.equal(isWorkspaceTrusted(true, r, '/w'), false);
  assert.equal(isWorkspaceTrusted(true, [], '/w'), false);
});

test(
  'validation: bad levels are errors at their key, relative paths warnings',
  { timeout: 5000 },
  () => {
    const v = validateTrustRules({ '/ok': 'TRUST_FOLDER', '/bad': 'TRUST', rel: 'TRUST_FOLDER' });
    assert.deepEqual(v.value, [{ path: '/ok', level: 'TRUST_FOLDER' }]);
    assert.equal(v.errors.length, 1);
    assert.deepEqual(v.errors[0]?.path, ['/bad']);
    assert.match(
      v.errors[0]?.message ?? '',
      /expected one of "TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST", got a string/,
    );
    assert.equal(v.warnings.length, 1);
    assert.match(v.warnings[0]?.message ?? '', /not an absolute path/);
    assert.match(validateTrustRules([1]).errors[0]?.message ?? '', /expected an object/);
    assert.deepEqual(validateTrustRules(undefined).value, []);
  },
);

test('isWithin: paths are normalised, not string prefixes', { timeout: 5000 }, () => {
  assert.equal(isWithin('/a/b/', '/a'), true);
  assert.equal(isWithin('/a/../b', '/a'), false);
  assert.equal(isWithin('/ab', '/a'), false);
  assert.equal(isWithin('/a', '/a'), true);
});
