import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Services } from '@service/core';
import { A2A_REST_PATHS, a2aRestUnavailableResponse, a2aRpcUnavailableResponse } from '@service/core/a2a';
import { mcpUnavailableResponse } from '@service/core/mcp';
import { createSeamRouter, sendWebResponse, toWebRequest, unavailableResponse, type SeamHandler } from '@service/core/http';
import type { Logger } from '@service/core/log';
import { contextFromHeaders, failSpan, inContext, recordHttpServerRequest, SpanKind, startSpan } from '@service/core/telemetry';
import { BASE_SECURITY_HEADERS, withSeamSecurityHeaders } from './app/http-security.server.ts';
import { presentsHeaderCredential, type UnauthenticatedCap } from './app/unauthenticated-cap.server.ts';

/**
 * Every machine-facing route and the core handler that serves it. These are matched before
 * Express and Remix (server.ts), so A2A, OAuth, the runtime's bridges, MCP, the widget API,
 * discovery and health never pay for the admin UI's stack and never meet its session redirects
 * (ADR 0011).
 */
export function seamRoutes({ handlers }: Services) {
  return createSeamRouter({
    '/healthz': (request) => handlers.healthz(request),
    '/metrics': (request) => handlers.metrics(request),
    '/.well-known/agent.json': (request) => handlers.agentCard(request),
    '/.well-known/agent-card.json': (request) => handlers.agentCardV1(request),
    '/.well-known/jwks.json': (request) => handlers.jwks(request),
    '/.well-known/oauth-authorization-server': (request) => handlers.oauthMetadata(request),
    // RFC 9728: the root form and the form suffixed with the resource's path (what MCP clients try first).
    '/.well-known/oauth-protected-resource': (request) => handlers.mcpResourceMetadata(request),
    '/.well-known/oauth-protected-resource/api/mcp': (request) => handlers.mcpResourceMetadata(request),
    '/api/oauth/token': (request) => handlers.oauthToken(request),
    '/api/oauth/register': (request) => handlers.oauthRegister(request),
    '/api/oauth/revoke': (request) => handlers.oauthRevoke(request),
    '/api/a2a': jsonRpcA2a((request) => handlers.a2a(request)),
    '/api/a2a/resume': (request) => handlers.aguiResume(request),
    '/a2a/:vendor/:slug': jsonRpcA2a((request, { vendor, slug }) => handlers.a2a(request, { agent: `@${vendor}/${slug}` })),
    '/a2a/:vendor/:slug/.well-known/agent-card.json': (request, { vendor, slug }) => handlers.agentCardV1(request, `@${vendor}/${slug}`),
    ...a2aRest('/api/a2a', (request) => handlers.a2aRest(request)),
    ...a2aRest('/a2a/:vendor/:slug', (request, { vendor, slug }) => handlers.a2aRest(request, { agent: `@${vendor}/${slug}` })),
    '/api/a2a/agents/:vendor/:slug': (request, { vendor, slug }) => handlers.agentBridge(request, { vendor: vendor!, slug: slug! }),
    '/api/llm-bridge': (request) => handlers.llmBridge(request),
    '/api/mcp': whenDatabaseDown((request) => handlers.mcp(request), mcpUnavailableResponse),
    '/api/agents/:slug/stream': (request, { slug }) => handlers.widgetStream(request, slug!),
    '/api/agents/:slug/undo': (request, { slug }) => handlers.widgetUndo(request, slug!),
    '/api/agents/:slug/status': (request, { slug }) => handlers.widgetStatus(request, slug!),
    '/api/cms-a-widget/bundle.js': (request) => handlers.widgetBundle(request),
    '/api/cms-b-widget/bundle.js': (request) => handlers.widgetBundle(request),
  });
}

/**
 * What a route answers while the database is down, in its own protocol's error shape (a JSON-RPC
 * client reads a JSON-RPC error, a REST client a google.rpc.Status); a route without one answers
 * the service's `{ error }` body. All are 503 with Retry-After.
 */
type DatabaseDownAnswer = (host: string) => Response;
const downAnswers = new WeakMap<SeamHandler, DatabaseDownAnswer>();
function whenDatabaseDown(handle: SeamHandler, answer: DatabaseDownAnswer): SeamHandler {
  downAnswers.set(handle, answer);
  return handle;
}
const jsonRpcA2a = (handle: SeamHandler) => whenDatabaseDown(handle, a2aRpcUnavailableResponse);

/** The A2A HTTP+JSON binding's paths (`/message:send`, `/tasks/:task`…) under one A2A base, all to one handler. */
const a2aRest = (base: string, handle: SeamHandler) => {
  whenDatabaseDown(handle, a2aRestUnavailableResponse);
  return Object.fromEntries(A2A_REST_PATHS.map((path) => [`${base}${path}`, handle]));
};

/** Routes that answer without the database: health and metrics say themselves that it is down; the widget bundles are files; resource metadata is configuration. */
const WITHOUT_DATABASE = new Set(['/healthz', '/metrics', '/api/cms-a-widget/bundle.js', '/api/cms-b-widget/bundle.js', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']);

/**
 * A node:http listener part: serves a seam route and answers true, or answers false for the UI.
 * A request without a credential counts against its address's cap while its body arrives.
 */
export function createSeamListener(services: Services, logger: Logger, unauthenticated: UnauthenticatedCap) {
  const router = seamRoutes(services);
  const fallbackHost = new URL(services.config.baseUrl).host;
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const route = router.match(path);
    if (!route) return false;
    // While the database cannot be reached every route that needs it answers 503 at once (Retry-After).
    if (!services.database.available() && !WITHOUT_DATABASE.has(path)) {
      const answer = downAnswers.get(route.handle);
      const origin = `http://${req.headers.host ?? fallbackHost}`;
      // The host as a request's URL names it (normalised); a Host header no URL takes gets the plain answer.
      void sendWebResponse(res, withSeamSecurityHeaders(answer && URL.canParse(origin) ? answer(new URL(origin).host) : unavailableResponse()));
      return true;
    }
    if (!presentsHeaderCredential(req, path) && !unauthenticated.admit(req, res)) return true;
    let request: Request;
    try {
      request = toWebRequest(req, `http://${req.headers.host ?? fallbackHost}`, res);
    } catch {
      res.writeHead(400, { ...BASE_SECURITY_HEADERS, 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'BAD_REQUEST', message: 'Malformed request URL' } }));
      return true;
    }
    // A server span per request, continuing the caller's trace (`traceparent`): a call from another
    // instance and what it starts here are one trace. It ends when the answer does (streams included).
    const started = performance.now();
    const { span, context: traced } = startSpan(`${req.method ?? 'GET'} ${route.pattern}`, {
      kind: SpanKind.SERVER,
      parent: contextFromHeaders(req.headers),
      attributes: { 'http.request.method': req.method ?? 'GET', 'http.route': route.pattern, 'url.path': path },
    });
    res.once('close', () => {
      recordHttpServerRequest({ method: req.method ?? 'GET', route: route.pattern, status: res.statusCode }, (performance.now() - started) / 1000);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) failSpan(span, { code: String(res.statusCode) });
      span.end();
    });
    inContext(traced, () => route.handle(request, route.params))
      .then((response) => sendWebResponse(res, withSeamSecurityHeaders(response)))
      .catch((error: unknown) => {
        // A handler that rethrows what a client's leaving did to it (a body cut off) is no failure of ours.
        if (request.signal.aborted) {
          logger.debug('client went away before its answer', { path });
          return void res.destroy();
        }
        logger.error('seam handler failed', { error, path });
        if (res.headersSent) return void res.destroy();
        res.writeHead(500, { ...BASE_SECURITY_HEADERS, 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'INTERNAL', message: 'Internal error' } }));
      });
    return true;
  };
}
