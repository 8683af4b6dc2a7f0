import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['core', 'embedded', 'web', 'test'],
  },
});
