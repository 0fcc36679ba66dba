// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { boundaries } from './eslint.boundaries.js';

export default tseslint.config(
  { ignores: ['dist/', '*/dist/', 'node_modules/', 'coverage/', 'bin/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['test/**/*.ts', '*/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  ...boundaries,
  {
    // better-sqlite3's connections are opened by src/system/sqlite.ts alone, which hands the
    // package its addon: the package's own lookup (`bindings`) costs every start some 4 ms and
    // finds nothing from the bundle. Its types may be imported anywhere.
    files: ['src/**/*.ts'],
    ignores: ['src/system/sqlite.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='better-sqlite3'][importKind!='type']",
          message: 'Open SQLite files with openSqlite() (src/system/sqlite.ts); import better-sqlite3 here for its types only (import type).',
        },
      ],
    },
  },
  {
    // No circles in the agent's import graph (eslint.boundaries.js has the ranks that keep it so).
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Parse .ts files for their imports (the plugin's TypeScript preset), resolve `.js` specifiers to them.
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], ...tseslint.configs.disableTypeChecked },
  {
    // CommonJS helpers preloaded with `node --require` (test/helpers/module-trace/).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
