// @ts-check
import tseslint from 'typescript-eslint';

const FOLDERS = [
  'api',
  'informers',
  'approvals',
  'proc',
  'pool',
  'lsp',
  'auth',
  'reconcilers',
  'controller',
  'gateway',
  'cli',
  'e2e',
  'bench',
  'testing',
];

// Folders a row allows for their types only (`import type`): auth/ implements the pool's
// AuthPort, it never drives a pool; proc/ names the server kinds of api/ in its records.
/** @type {Record<string, string[]>} */
const TYPES_ONLY = { auth: ['pool'], proc: ['api'] };

/**
 * The patterns that let `folder` import only types from its TYPES_ONLY folders.
 * @param {string} folder
 */
function typesOnlyPatterns(folder) {
  return (TYPES_ONLY[folder] ?? []).map((f) => ({
    regex: `^(\\.\\./)+${f}/`,
    allowTypeImports: true,
    message: `${folder}/ may import only types from ${f}/ (DESIGN §3): use 'import type'.`,
  }));
}

// Runtime code must never load @kubernetes/client-node (types only, DESIGN §6). Repeated in
// the per-folder rule below because a later no-restricted-imports replaces an earlier one.
const K8S_TYPES_ONLY = {
  name: '@kubernetes/client-node',
  message: "Use 'import type' only.",
  allowTypeImports: true,
};

export default tseslint.config(
  { ignores: ['dist/**', '.build-*/**', 'node_modules/**', 'eslint.config.js', 'scripts/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Async work that nobody awaits is how reconciles silently vanish.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test collects these itself; awaiting them would serialise nothing useful.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: [K8S_TYPES_ONLY] }],
    },
  },
  // DESIGN §3: a module imports only what its folder's row allows (tests, `x.test.ts`, and test
  // helpers, under a `testing/` folder, may reach further). Data flows one way; a wrong import
  // is a lint error, not a review note.
  ...Object.entries({
    api: [],
    informers: ['api'],
    approvals: ['api'],
    // Server processes, whatever they speak: own process group, setsid escapees, tree kill,
    // the orphan record. A leaf under pool/ and lsp/ (api/: types only).
    proc: ['api'],
    // lsp/: the language-server pool (lsp-pool.ts) is pool.ts's lifecycle over LspConnections.
    pool: ['api', 'proc', 'lsp'],
    // The language-server client (DESIGN §3): pooled by pool/'s lifecycle, it sees only api/
    // and its processes' machinery (proc/, shared with MCP servers).
    lsp: ['api', 'proc'],
    // OAuth in one room: discovery, login, refresh, the grant store. pool/: types only.
    auth: ['api', 'pool'],
    reconcilers: ['api', 'approvals', 'pool'],
    // lsp/: the session answers a language-server question on its Ready connection
    // (lsp-questions.ts). proc/: the daemon's one orphan record, fed by both pools.
    controller: ['api', 'informers', 'approvals', 'proc', 'pool', 'auth', 'reconcilers', 'lsp'],
    // The MCP face of a session; pool types (its routing hooks) and pool/inbound.ts (the one
    // way to put a step in front of the SDK on a transport), never a pool of its own. No lsp/:
    // the `lsp_*` tools ask through the session seam (SessionPort.ask), holding no connection.
    gateway: ['api', 'controller', 'pool'],
    // auth/: the loopback listener of `mcpctl login` and the in-band login.
    cli: ['api', 'controller', 'gateway', 'auth'],
  }).map(([folder, allowed]) => ({
    files: [`${folder}/**/*.ts`],
    ignores: ['**/*.test.ts', '**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [K8S_TYPES_ONLY],
          patterns: [
            {
              regex: `^(\\.\\./)+(${FOLDERS.filter((f) => f !== folder && !allowed.includes(f)).join('|')})/`,
              message: `${folder}/ may import only ${allowed.length ? allowed.join(', ') : 'nothing of ours'} (DESIGN §3).`,
            },
            ...typesOnlyPatterns(folder),
          ],
        },
      ],
    },
  })),
  {
    // testing/ (the tests' shared helpers: polling, temp dirs) is a leaf: any test may import
    // it without a circle. Production code never may: it is in FOLDERS, so no row allows it.
    files: ['testing/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [K8S_TYPES_ONLY],
          patterns: [
            {
              regex: `^(\\.\\./)+(${FOLDERS.join('|')})/`,
              message: 'testing/ imports nothing of ours: it is the leaf every test may use.',
            },
          ],
        },
      ],
    },
  },
  {
    // Only admission mints tickets (DESIGN §5): a cast anywhere else is a second admission path.
    ignores: ['reconcilers/admission.ts', 'pool/testing/**', '**/*.test.ts', 'bench/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'TSAsExpression > TSTypeReference[typeName.name=/^(AdmissionTicket|LanguageServerTicket)$/]',
          message:
            'Only reconcilers/admission.ts may create an AdmissionTicket or a LanguageServerTicket.',
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'e2e/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
);
