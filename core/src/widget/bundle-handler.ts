import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const WIDGET_BUNDLE_PATH = fileURLToPath(new URL('../../../widget/dist/widget.js', import.meta.url));

/**
 * `GET /api/cms-a-widget/bundle.js` and `/api/cms-b-widget/bundle.js`: the built IIFE, with
 * permissive CORS and no caching at all, so an upgrade takes effect on the next page load.
 */
export function createBundleHandler(bundlePath: string = WIDGET_BUNDLE_PATH) {
  let cached: { mtimeMs: number; body: string } | undefined;
  return async (): Promise<Response> => {
    const headers = {
      'content-type': 'application/javascript; charset=utf-8',
      'cache-control': 'no-cache, no-store, must-revalidate',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
    };
    try {
      const info = await stat(bundlePath);
      if (!cached || cached.mtimeMs !== info.mtimeMs) cached = { mtimeMs: info.mtimeMs, body: await readFile(bundlePath, 'utf8') };
      return new Response(cached.body, { status: 200, headers });
    } catch {
      return new Response('/* the widget bundle is not built: run pnpm build */', { status: 503, headers });
    }
  };
}
