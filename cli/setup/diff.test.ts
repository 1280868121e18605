import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hideSecrets, unifiedDiff } from './diff.js';

describe('setup diff', () => {
  it('prints a unified diff with context, /dev/null for a new file', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\nh\n';
    const after = 'a\nb\nc\nD\ne\nf\ng\nh\n';
    assert.equal(
      unifiedDiff('f', before, after, []),
      '--- f\n+++ f\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n',
    );
    assert.equal(
      unifiedDiff('n', undefined, 'x\n', []),
      '--- /dev/null\n+++ n\n@@ -0,0 +1,1 @@\n+x\n',
    );
    assert.equal(unifiedDiff('f', before, before, []), '');
  });

  it('hides a secret however the file escapes it, and in a comment', () => {
    const secrets = [{ value: 'sk-secret', shown: '<redacted>' }];
    assert.equal(hideSecrets('"K": "sk-\\u0073ecret",', secrets), '"K": "<redacted>",');
    assert.equal(hideSecrets('// was sk-secret', secrets), '// was <redacted>');
    const diff = unifiedDiff('f', '{\n  "K": "sk-secret"\n}\n', '{\n}\n', secrets);
    assert.ok(!diff.includes('sk-secret'), diff);
  });
});
