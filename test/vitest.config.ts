import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'test',
    include: ['e2e/**/*.test.ts', 'registry/**/*.test.ts', 'a2a/**/*.test.ts', 'mcp/**/*.test.ts', 'llm/**/*.test.ts', 'cms/**/*.test.ts', 'widget/**/*.test.ts', 'helpers/**/*.test.ts', 'imports/**/*.test.ts', 'workspace/**/*.test.ts', 'telemetry/**/*.test.ts'],
    benchmark: { include: ['bench/**/*.bench.ts'] },
    globalSetup: ['../core/src/testing/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A test that makes no assertion fails: it would pass whatever the code does.
    expect: { requireAssertions: true },
  },
});
