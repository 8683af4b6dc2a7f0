import path from 'node:path';
import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { alias: { '~': path.resolve(import.meta.dirname, 'app') } },
  esbuild: { jsx: 'automatic' },
  test: {
    name: 'web',
    include: ['*.test.ts', 'app/**/*.test.ts', 'app/**/*.test.tsx'],
    globalSetup: ['../core/src/testing/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // A test that makes no assertion fails: it would pass whatever the code does.
    expect: { requireAssertions: true },
  },
});
