import { defineProject } from 'vitest/config';

// No test database here: these tests start the embedded servers themselves.
export default defineProject({
  test: {
    name: 'embedded',
    include: ['src/**/*.test.ts'],
    // Every test asserts something (ADR 0027).
    expect: { requireAssertions: true },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
