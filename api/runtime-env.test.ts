import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runtimeEffectOf } from './runtime-env.js';

describe('runtime-env: variables that change what a server loads', { timeout: 10_000 }, () => {
  it('marks the loaders, the search path, package sources, proxies and trust', () => {
    for (const name of [
      'NODE_OPTIONS',
      'LD_PRELOAD',
      'LD_LIBRARY_PATH',
      'DYLD_INSERT_LIBRARIES',
      'PYTHONPATH',
      'PYTHONSTARTUP',
      'PATH',
      'PERL5OPT',
      'RUBYOPT',
      'JAVA_TOOL_OPTIONS',
      '_JAVA_OPTIONS',
      'BASH_ENV',
      'BASH_FUNC_ls%%',
      'GIT_CONFIG_COUNT',
      'GIT_SSH_COMMAND',
      'npm_config_registry',
      'UV_INDEX_URL',
      'HOME',
    ])
      assert.match(runtimeEffectOf(name) ?? '', /^changes what the runtime loads: /, name);
    assert.match(runtimeEffectOf('https_proxy') ?? '', /^changes where the server's connections/);
    assert.match(runtimeEffectOf('NODE_TLS_REJECT_UNAUTHORIZED') ?? '', /^changes which servers/);
  });

  it('ignores case (Windows, npm and proxies read either) and leaves tuning variables alone', () => {
    assert.equal(runtimeEffectOf('Path'), runtimeEffectOf('PATH'));
    assert.equal(runtimeEffectOf('node_options'), runtimeEffectOf('NODE_OPTIONS'));
    for (const name of ['NODE_ENV', 'DEBUG', 'LANG', 'GITHUB_TOKEN', 'PATHS', 'MY_PATH'])
      assert.equal(runtimeEffectOf(name), undefined, name);
  });
});
