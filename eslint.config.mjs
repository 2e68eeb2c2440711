// `npm run lint`: a small, type-aware rule set over the TypeScript that tsconfig.json covers. Formatting
// is Prettier's (npm run format:check); type errors are tsc's (npm run typecheck). These rules catch what
// neither does: a promise nobody awaits (its rejection goes unheard), a name nobody uses, an `any` in src.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', 'editors/**', 'test/fixtures/**', '**/*.mjs', '**/*.cjs', '**/*.js'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    // The source keeps a few directives for rules outside this set (no-control-regex where a pattern matches
    // control characters on purpose): they are notes for a reader, not findings.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // A parameter a signature needs may go unused (tsc's noUnusedParameters is off too); `_name` marks
      // one on purpose, and so does `_` for a caught error or a destructured element left out.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'none', caughtErrors: 'none', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // Tests may reach for `any` where a fake stands in for a type they do not build whole.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
