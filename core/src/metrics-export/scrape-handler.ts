import { constantTimeEqual } from '../crypto/index.ts';
import { bearerToken } from '../http/index.ts';

/**
 * `GET /metrics`: the Prometheus text of every instrument, for a scraper that presents the
 * operator's token (`Authorization: Bearer <SERVICE_METRICS_TOKEN>`, compared in constant time).
 * 404 while the endpoint is off, as if it did not exist.
 */
export function createMetricsScrapeHandler(deps: { token: () => string | undefined; scrape: () => (() => Promise<string>) | null }) {
  return async (request: Request): Promise<Response> => {
    const scrape = deps.scrape();
    const token = deps.token();
    if (!scrape || !token) return new Response('Not found\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    if (request.method !== 'GET' && request.method !== 'HEAD') return new Response('Method not allowed\n', { status: 405, headers: { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' } });
    const presented = bearerToken(request);
    if (!presented || !constantTimeEqual(presented, token)) {
      return new Response('Unauthorized\n', { status: 401, headers: { 'www-authenticate': 'Bearer realm="metrics"', 'content-type': 'text/plain; charset=utf-8' } });
    }
    return new Response(request.method === 'HEAD' ? null : await scrape(), { status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' } });
  };
}
