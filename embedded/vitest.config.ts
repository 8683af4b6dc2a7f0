import { defineProject } from 'vitest/config';

// No test database here: these tests start the embedded servers themselves.
export default defineProject({
  test: {
    name: 'embedded',
    include: ['src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
