import { vitePlugin as remix } from '@remix-run/dev';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'vite';
import path from 'node:path';
import { coreDistPath } from '../scripts/core-dist.mjs';

const serverBuildDir = path.resolve(import.meta.dirname, 'build/server');

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [
    tailwindcss(),
    remix({
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
  ],
  resolve: { alias: { '~': path.resolve(import.meta.dirname, 'app') } },
  build: {
    // The server build imports core at run time from core/dist (the compiled core the built web
    // server loads too), so the server and the routes share one instance of it. Vite's ssr.external
    // cannot do this: it only externalizes packages whose entry is plain JavaScript.
    rollupOptions: {
      ...(isSsrBuild ? { external: [/^@service\/core(\/|$)/], output: { paths: (id: string) => (id.startsWith('@service/core') ? coreDistPath(id, serverBuildDir) : id) } } : {}),
      // Resource routes (sign-out, the tRPC endpoint, the index redirect) have no browser code, so
      // their client chunks are empty by design; saying so on every start is noise.
      // A dependency's comment Rollup drops (zod's placed `@__PURE__` notes) is theirs to fix, not ours to read at every build.
      onwarn(warning, warn) {
        if (warning.code === 'EMPTY_BUNDLE') return;
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/')) return;
        warn(warning);
      },
    },
  },
  server: { hmr: { port: 0 } },
}));
