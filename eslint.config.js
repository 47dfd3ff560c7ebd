// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/', '.stack/', 'dist/', 'web/dist/', 'cli/dist/', 'test/fixtures/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        project: ['./tsconfig.json', './web/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports' },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // The web explorer runs in the browser (typed by web/tsconfig.json).
    files: ['web/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O modules.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'Workflow code must not use Node built-ins (deterministic sandbox).',
          })),
          patterns: [
            {
              group: [
                'pg',
                'pg-*',
                'koa',
                '@koa/*',
                'tree-sitter*',
                '@temporalio/worker',
                '@temporalio/client',
                '@temporalio/activity',
              ],
              message: 'Workflow code must not import I/O or worker-side modules.',
            },
            {
              group: ['../activities/*', '../activities/**', '../engine/*', '../engine/**', '../lib/*'],
              allowTypeImports: true,
              message: 'Import activities and shared code as types only from workflows.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
