import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { TEMPORARY_ALLOWLIST } from './.dependency-cruiser.mjs';

const noMockedDatabase = {
  selector: "CallExpression[callee.object.name='vi'][callee.property.name='mock'][arguments.0.value=/^(mongoose|mongodb)$/]",
  message: 'Storage tests run against the real test database: do not mock mongoose or mongodb.',
};

// web-uses-no-database-models (the import side is in .dependency-cruiser.mjs): web reaches the
// database only through core's use cases, so it never takes `services.database.models` (or the raw
// connection) in hand, however it got `services`.
const databaseModelsMessage = 'web-uses-no-database-models: web calls core use cases (services.*), never the database models or connection (ADR 0024).';
const noDatabaseModels = [
  {
    selector: "MemberExpression[object.type='MemberExpression'][object.property.name='database'][property.name=/^(models|connection)$/]",
    message: databaseModelsMessage,
  },
  {
    selector: "VariableDeclarator[init.type='MemberExpression'][init.property.name='database'] > ObjectPattern > Property[key.name=/^(models|connection)$/]",
    message: databaseModelsMessage,
  },
];
const allowedDatabaseUses = TEMPORARY_ALLOWLIST.filter((entry) => entry.rule === 'web-uses-no-database-models' && entry.uses);

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/build/**', '**/dist/**', '.data/**', 'test/.artifacts/**', 'core/test-fixtures/**', '**/dist-*/**', 'core/src/a2a/grpc/gen/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': ['error', noMockedDatabase],
    },
  },
  {
    files: ['**/bin/*.js', 'scripts/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', console: 'readonly' } },
  },
  {
    // Scripts the CMS modules load into their admin pages, as they are (no build step).
    files: ['cms-plugins/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { window: 'readonly', document: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests in web may read the database to check what was stored.
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: { 'no-restricted-syntax': ['error', noMockedDatabase, ...noDatabaseModels] },
  },
  // The temporary allowlist (.dependency-cruiser.mjs): a warning on every run until issue 27 part 2.
  ...allowedDatabaseUses.map((entry) => ({
    files: [entry.from],
    rules: { 'no-restricted-syntax': ['warn', noMockedDatabase, ...noDatabaseModels.map((rule) => ({ ...rule, message: `${rule.message} Allowed for now: ${entry.why}.` }))] },
  })),
  {
    files: ['**/*.test.ts', '**/*.test.tsx'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
