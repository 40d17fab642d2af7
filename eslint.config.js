// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'test-output/**',
      '.tap/**',
      '.gateway/**',
      'clients/python/**',
      'clients/typescript/dist/**',
    ],
  },
  // Type-aware rules for all TypeScript sources.
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // scripts/generate-reference.ts is reached through test/docs, so tsconfig.json covers it.
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Async functions without await are deliberate: in-memory stores and tap callbacks implement async contracts.
      '@typescript-eslint/require-await': 'off',
      // Validators deliberately match control characters to reject them.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        // `_`-prefixed names are the codebase's convention for deliberately dropped values (e.g. `{ secret: _s, ...rest }`).
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Passing a caught `unknown` on to reject() forwards the original failure, as rethrowing it would.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-floating-promises': [
        'error',
        // tap queues t.test() subtests itself and runs them in order; awaiting them is unnecessary.
        { allowForKnownSafePromises: [{ from: 'package', name: 'PromiseWithSubtest', package: '@tapjs/core' }] },
      ],
    },
  },
  // Tests assert on untyped JSON bodies (light-my-request's `response.json()` is `any`); a wrong shape fails the assertion itself.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  // Node build/helper scripts (plain ESM JavaScript).
  {
    files: ['**/*.mjs', 'eslint.config.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  // Browser JavaScript served by the dashboard.
  {
    files: ['dashboard/assets/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
  },
);
