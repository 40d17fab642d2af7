// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { defineConfig } from 'eslint/config';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

// The gateway's layers, lowest first (docs/architecture.md): a folder imports only from its own
// layer's folders or lower ones, so the request path reads top-down and nothing below it reaches up.
const LAYERS = [
  [
    'gateway/errors.ts',
    'gateway/uuid.ts',
    'gateway/build-info.ts',
    'gateway/json-pointer.ts',
    'gateway/cache',
    'gateway/net',
    'gateway/signing',
    'gateway/metrics',
    'gateway/tracing',
    'gateway/policy',
  ],
  ['gateway/config'],
  ['gateway/store'],
  ['gateway/http'],
  ['gateway/service-accounts', 'gateway/oauth'],
  ['gateway/pipeline'],
  ['gateway/decision', 'gateway/dashboard'],
  ['gateway/admin'],
  ['gateway/ops', 'gateway/process', 'gateway/examples', 'gateway/app.ts', 'gateway/main.ts'],
];
/** For each layer: it may not import from any layer above it, nor the gateway from the CLI (a program of its own). */
const LAYER_ZONES = [
  ...LAYERS.flatMap((layer, i) =>
    LAYERS.slice(i + 1).flatMap((above) =>
      layer.flatMap((target) =>
        above.map((from) => ({ target: `./${target}`, from: `./${from}`, message: `${target} is below ${from} (eslint.config.js LAYERS)` })),
      ),
    ),
  ),
  ...LAYERS.flat().map((target) => ({
    target: `./${target}`,
    from: './gateway/cli',
    message: 'the CLI is a program of its own: the gateway does not import it',
  })),
];

export default defineConfig(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'test-output/**', '.tap/**', '.gateway/**', 'clients/python/**', 'clients/typescript/dist/**'],
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
  // The layers, and no import cycles, in the gateway's own code.
  {
    files: ['gateway/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })] },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: LAYER_ZONES }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // The client package by its name only: a path into it would bypass its exports, and the compiled
      // gateway would carry a copy of it. (A zone above cannot say this: in development the package's
      // name resolves to that source too, through tsconfig.json's paths.)
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)clients/typescript(/|$)',
              message: "import @access-gateway/signing (or one of its exports' subpaths), not the client package's files",
            },
          ],
        },
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
