// The fence rules alone (eslint/fences.js), without type information: eslint.config.js includes
// `fenceRules`, and test/arch/fences.test.ts runs this config over the tree in seconds.
import tseslint from 'typescript-eslint';
import fences from './fences.js';

export const fenceRules = {
  files: ['**/*.ts', '**/*.tsx'],
  plugins: { fences },
  rules: { 'fences/layers': 'error', 'fences/no-cycle': 'error' },
};

export default [
  { ignores: ['dist/', 'node_modules/', 'bench/results/', 'coverage/'] },
  // The typescript-eslint plugin is loaded (no rule of it on) so that the tree's eslint-disable comments naming its rules resolve.
  { linterOptions: { reportUnusedDisableDirectives: 'off' }, plugins: { '@typescript-eslint': tseslint.plugin } },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parser: tseslint.parser, parserOptions: { jsxPragma: 'h', jsxFragmentName: 'Fragment' } },
  },
  fenceRules,
];
