import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

/** The bundle must stay small: the build fails when the gzipped IIFE exceeds the budget. */
export const BUDGET_GZIP_BYTES = Number(process.env.WIDGET_BUDGET_BYTES ?? 15 * 1024);

function sizeBudget(): Plugin {
  return {
    name: 'size-budget',
    apply: 'build',
    writeBundle(options, bundle) {
      for (const file of Object.keys(bundle)) {
        const bytes = gzipSync(readFileSync(path.join(options.dir ?? 'dist', file))).length;
        const line = `widget bundle ${file}: ${bytes} bytes gzipped (budget ${BUDGET_GZIP_BYTES})`;
        if (bytes > BUDGET_GZIP_BYTES) throw new Error(`${line}: over budget`);
        this.info(line);
      }
    },
  };
}

export default defineConfig({
  plugins: [sizeBudget()],
  build: {
    lib: { entry: path.resolve(import.meta.dirname, 'src/main.ts'), name: 'ServiceWidget', formats: ['iife'], fileName: () => 'widget.js' },
    outDir: 'dist',
    emptyOutDir: true,
    minify: 'esbuild',
    target: 'es2020',
  },
});
