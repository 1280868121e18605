/**
 * Environment variables that change what a server's runtime loads or runs, or where its
 * connections go, whatever program the `command` names: the one table the approval disclosure
 * marks them by (disclosure.ts), so the person deciding about a repository's entry sees that
 * `NODE_OPTIONS=--require ./x.cjs` runs the repository's code inside a server they know.
 *
 * Guarantees:
 * - One row per effect, with the sentence a warning says; names match case-insensitively (npm
 *   and the proxy variables are read in either case, Windows names have no case); a name ending
 *   in `*` matches every name it starts (`DYLD_*`, `GIT_CONFIG*`, `NPM_CONFIG_*`).
 * - Chosen by what the variable makes a program do, not by language: the dynamic linker and
 *   the program search path; the option and module-path variables of the runtimes MCP and
 *   language servers run on (Node.js, Python, Perl, Ruby, Java, .NET); the start-up files of
 *   shells; the package sources of the runners that fetch servers at start (npx, uvx, pip, go);
 *   git's configuration and the helper programs it starts; the folder programs read their
 *   configuration from; proxies and certificate trust. A variable that only tunes a program
 *   (`NODE_ENV`, `DEBUG`, `LANG`) is not in it.
 */

/** What a marked variable changes, as the warning says it after `env NAME`. */
export type RuntimeEffect =
  | 'changes what the runtime loads'
  | "changes where the server's connections go"
  | 'changes which servers are trusted';

interface Row {
  /** Names, or prefixes ending in `*`; compared without case. */
  readonly names: readonly string[];
  readonly effect: RuntimeEffect;
  /** Why, in a few words a person deciding can check against the value. */
  readonly why: string;
}

const LOADS = 'changes what the runtime loads';

const TABLE: readonly Row[] = [
  {
    names: ['LD_PRELOAD', 'LD_AUDIT', 'LD_LIBRARY_PATH', 'DYLD_*'],
    effect: LOADS,
    why: 'the dynamic linker loads the libraries it names, or looks for libraries there, in every program the server starts',
  },
  {
    names: ['PATH'],
    effect: LOADS,
    why: 'it decides which program each command name starts',
  },
  {
    names: ['NODE_OPTIONS'],
    effect: LOADS,
    why: 'Node.js takes options from it (--require and --import run a module before the server)',
  },
  { names: ['NODE_PATH'], effect: LOADS, why: 'Node.js looks for modules there' },
  {
    names: ['PYTHONPATH', 'PYTHONHOME', 'PYTHONUSERBASE'],
    effect: LOADS,
    why: 'Python imports modules (and runs .pth files) from there',
  },
  { names: ['PYTHONSTARTUP'], effect: LOADS, why: 'Python runs the file it names' },
  {
    names: ['PERL5OPT'],
    effect: LOADS,
    why: 'Perl takes options from it (-M loads a module)',
  },
  { names: ['PERL5LIB', 'PERLLIB'], effect: LOADS, why: 'Perl loads modules from there' },
  {
    names: ['RUBYOPT'],
    effect: LOADS,
    why: 'Ruby takes options from it (-r loads a library)',
  },
  {
    names: ['RUBYLIB', 'GEM_HOME', 'GEM_PATH', 'BUNDLE_GEMFILE'],
    effect: LOADS,
    why: 'Ruby loads libraries and gems from there',
  },
  {
    names: ['JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS'],
    effect: LOADS,
    why: 'the JVM takes options from it (-javaagent runs code before the server)',
  },
  { names: ['CLASSPATH'], effect: LOADS, why: 'Java loads classes from there' },
  { names: ['JAVA_HOME'], effect: LOADS, why: 'it decides which Java runs' },
  {
    names: ['DOTNET_STARTUP_HOOKS', 'CORECLR_PROFILER*', 'COR_PROFILER*'],
    effect: LOADS,
    why: 'the .NET runtime loads the assemblies or profiler it names',
  },
  {
    names: ['BASH_ENV', 'ENV'],
    effect: LOADS,
    why: 'a shell the server starts runs the file it names first',
  },
  {
    names: ['BASH_FUNC_*'],
    effect: LOADS,
    why: 'bash takes a function from it, which can stand in for any command of a script',
  },
  { names: ['ZDOTDIR'], effect: LOADS, why: 'zsh runs its start-up files from there' },
  {
    names: ['NPM_CONFIG_*'],
    effect: LOADS,
    why: 'npm and npx take their configuration from it (the registry packages come from, scripts)',
  },
  {
    names: [
      'UV_INDEX',
      'UV_INDEX_URL',
      'UV_DEFAULT_INDEX',
      'UV_EXTRA_INDEX_URL',
      'PIP_INDEX_URL',
      'PIP_EXTRA_INDEX_URL',
    ],
    effect: LOADS,
    why: 'uvx and pip fetch the packages they run from the index it names',
  },
  {
    names: ['GOFLAGS', 'GOPROXY'],
    effect: LOADS,
    why: 'go takes flags (-toolexec runs a program) or fetches modules from it',
  },
  {
    names: ['GIT_CONFIG*'],
    effect: LOADS,
    why: 'git takes configuration from it (hooks, fsmonitor and aliases run programs)',
  },
  {
    names: [
      'GIT_EXEC_PATH',
      'GIT_SSH',
      'GIT_SSH_COMMAND',
      'GIT_ASKPASS',
      'SSH_ASKPASS',
      'GIT_PROXY_COMMAND',
      'GIT_EXTERNAL_DIFF',
      'GIT_EDITOR',
      'GIT_PAGER',
      'EDITOR',
      'VISUAL',
      'PAGER',
    ],
    effect: LOADS,
    why: 'a program that reads it runs the command it names',
  },
  {
    names: ['HOME', 'XDG_CONFIG_HOME'],
    effect: LOADS,
    why: 'programs read their configuration (.npmrc, .gitconfig, …) from there',
  },
  {
    names: ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY'],
    effect: "changes where the server's connections go",
    why: 'they go through the proxy it names',
  },
  {
    names: [
      'NODE_TLS_REJECT_UNAUTHORIZED',
      'NODE_EXTRA_CA_CERTS',
      'SSL_CERT_FILE',
      'SSL_CERT_DIR',
      'REQUESTS_CA_BUNDLE',
      'CURL_CA_BUNDLE',
      'GIT_SSL_NO_VERIFY',
      'PYTHONHTTPSVERIFY',
    ],
    effect: 'changes which servers are trusted',
    why: 'certificates are checked against what it names, or not at all',
  },
];

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** What setting `name` changes and why, `changes what the runtime loads: …`; else undefined. */
export function runtimeEffectOf(name: string): string | undefined {
  const upper = name.toUpperCase();
  const row = TABLE.find((r) => r.names.some((p) => matches(p, upper)));
  return row === undefined ? undefined : `${row.effect}: ${row.why}`;
}
