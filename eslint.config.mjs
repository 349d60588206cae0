import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import obol from './scripts/lint/obol-plugin.mjs'

export default defineConfig(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'dist/**',
      'coverage/**',
      'migrations/**',
      'web/dist/**',
      'clients/typescript/src/schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: { allowDefaultProject: ['*.mjs', 'bin/*.js', 'scripts/lint/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      // Fastify handlers are async by contract, with or without an await inside.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Ordering keeps no non-null assertions: a value it knows is there is narrowed, read through a helper that names
    // it when missing (kernel/invariant.ts), or held by reference.
    files: ['src/modules/ordering/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'error' },
  },
  {
    // The local lint rules are plain JavaScript over ESLint's untyped rule API.
    files: ['scripts/lint/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Modules meet through their index.ts only, and the sources import no circle (scripts/lint/import-graph.mjs).
    files: ['src/**/*.ts'],
    plugins: { obol },
    rules: { 'obol/module-boundaries': 'error', 'obol/no-import-cycle': 'error', 'obol/table-ownership': 'error' },
  },
  {
    // The web UI runs in the browser.
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Tests, benchmarks and the plain-JavaScript launchers in bin/ read JSON and dynamic imports without declared types.
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts', 'bin/*.js'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
)
