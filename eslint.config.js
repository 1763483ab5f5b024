// ESLint with typescript-eslint's type-aware rules; formatting is Prettier's (npm run format).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { fenceRules } from './eslint/fences.config.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'bench/results/', 'coverage/', 'vitest.config.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json', './bench/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
        jsxPragma: 'h',
        jsxFragmentName: 'Fragment',
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  // The layers and no import cycles (eslint/layers.js has the table).
  fenceRules,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
