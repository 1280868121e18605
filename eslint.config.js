// @ts-check
import tseslint from 'typescript-eslint';

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
      // Runtime code must never load @kubernetes/client-node (types only, DESIGN §6).
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@kubernetes/client-node',
              message: "Use 'import type' only.",
              allowTypeImports: true,
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
          selector: "TSAsExpression > TSTypeReference[typeName.name='AdmissionTicket']",
          message: 'Only reconcilers/admission.ts may create an AdmissionTicket.',
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
