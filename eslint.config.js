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

const config = tseslint.config(
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

// DESIGN §3, cli/'s rooms, bottom up, and the rooms each may import (no circle: a room imports
// only rooms listed before it). Beside them, at cli/'s top, the entry points (CLI_ENTRIES) and
// the small files every room shares (CLI_SHARED).
/** @type {Record<string, { rooms: string[], shared: string[] }>} */
const CLI_ROOMS = {
  // What every door gives an agent: its gateway's options, the inert port, the in-band login.
  agent: { rooms: [], shared: [] },
  // The socket protocol, both ends: the leaf of cli/ the doors and the commands use.
  rpc: { rooms: [], shared: ['errors', 'agent-message-size'] },
  output: { rooms: [], shared: ['objects'] },
  // The three doors: serve's pipe, the HTTP endpoint, the socket's methods. None imports another.
  serve: {
    rooms: ['agent', 'rpc'],
    shared: [
      'errors',
      'agent-message-size',
      'answer-timeout',
      'daemon-liveness',
      'version',
      'progress',
    ],
  },
  http: { rooms: ['agent', 'rpc'], shared: ['errors'] },
  methods: { rooms: ['agent', 'rpc'], shared: ['errors', 'objects'] },
  commands: {
    rooms: ['agent', 'rpc', 'output', 'serve', 'http', 'methods'],
    shared: ['*'],
  },
};
/** cli/'s entry points: the command line, the client commands' shared setup, the daemon. */
const CLI_ENTRIES = ['main', 'program', 'command-env', 'daemon-main', 'http-port-hold'];
/** cli/'s small shared files, and the rooms they use. */
const CLI_SHARED = [
  'errors',
  'version',
  'agent-message-size',
  'objects',
  'object-ref',
  'answer-timeout',
  'daemon-liveness',
  // The line a waiting command (or a serve starting a daemon) redraws on a terminal.
  'progress',
];
const CLI_SHARED_USES = ['rpc', 'output'];

/**
 * The patterns of a room of cli/: no other room it may not import, no file at cli/'s top it
 * may not (the entry points never; of the shared files, those its row names).
 * @param {string} room
 * @param {{ rooms: string[], shared: string[] }} allowed
 */
function cliRoomPatterns(room, allowed) {
  const others = Object.keys(CLI_ROOMS).filter((r) => r !== room && !allowed.rooms.includes(r));
  const topFiles = allowed.shared.includes('*')
    ? `(${['main', 'program'].join('|')})\\.js$`
    : allowed.shared.length
      ? `(?!(${allowed.shared.join('|')})\\.js$)[^/]+\\.js$`
      : `[^/]+\\.js$`;
  return [
    ...(others.length
      ? [
          {
            regex: `^\\.\\./(${others.join('|')})/`,
            message: `cli/${room}/ may import only ${allowed.rooms.length ? allowed.rooms.join(', ') : 'no other room'} of cli/'s rooms (DESIGN §3).`,
          },
        ]
      : []),
    {
      regex: `^\\.\\./${topFiles}`,
      message: `cli/${room}/ may import ${allowed.shared.includes('*') ? "cli/'s top files but main and program" : allowed.shared.length ? `only ${allowed.shared.join(', ')} of cli/'s top files` : "no file at cli/'s top"} (DESIGN §3).`,
    },
  ];
}

/** The patterns of cli/'s row (DESIGN §3), as the folder table above makes them. */
const cliPatterns = config.find((block) => block.files?.[0] === 'cli/**/*.ts')?.rules?.[
  'no-restricted-imports'
]?.[1]?.patterns;
if (!Array.isArray(cliPatterns)) throw new Error("eslint.config.js: cli/'s row is missing");

/**
 * A block of cli/ files restricted to cli/'s row and `patterns` (a later no-restricted-imports
 * replaces an earlier one, so each repeats cli/'s patterns).
 * @param {string[]} files
 * @param {object[]} patterns
 */
function cliBlock(files, patterns) {
  return {
    files,
    ignores: ['**/*.test.ts', '**/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [K8S_TYPES_ONLY], patterns: [...cliPatterns, ...patterns] },
      ],
    },
  };
}

export default [
  ...config,
  // DESIGN §3, inside cli/: which room of cli/ may import which.
  ...Object.entries(CLI_ROOMS).map(([room, allowed]) =>
    cliBlock([`cli/${room}/**/*.ts`], cliRoomPatterns(room, allowed)),
  ),
  cliBlock(
    CLI_SHARED.map((f) => `cli/${f}.ts`),
    [
      {
        regex: `^\\./(${Object.keys(CLI_ROOMS)
          .filter((r) => !CLI_SHARED_USES.includes(r))
          .join('|')}|${CLI_ENTRIES.join('|')})(/|\\.js$)`,
        message: `cli/'s shared files may import only ${CLI_SHARED_USES.join(', ')} of cli/'s rooms, and none of its entry points (DESIGN §3).`,
      },
    ],
  ),
];
