import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { DomainError } from '../errors/index.ts';
import { inSpan, SpanKind, withTraceHeaders } from '../telemetry/index.ts';
import { isNonPublicAddress } from './address-policy.ts';
import { readBytesLimited } from './body.ts';

export interface OutboundPolicy {
  /** Loopback, private and other non-public addresses are refused unless this is true (SERVICE_OUTBOUND_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** Connecting (DNS, TCP, TLS) may take this long; default 10 s. */
  connectTimeoutMs?: number;
  /**
   * Origins reached whatever `allowPrivate` says, each exactly (scheme, address, port): the
   * service's own embedded registry on loopback. Read on every call, since that origin is known
   * only once the registry has started. Only an origin with a literal address is exempt: a name
   * is checked as it resolves, like any other.
   */
  exemptOrigins?: ReadonlySet<string>;
}

export interface OutboundCall {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | URLSearchParams | Blob | null;
  signal?: AbortSignal;
  /** Until the answer's headers, and for answers read whole, its body too; default 30 s. */
  timeoutMs?: number;
  /** The answer is a stream its reader follows for as long as it lasts (SSE): the timeout ends at the headers. */
  streaming?: boolean;
  /** Redirects to follow, each checked like the first request; 0 (the default) hands a 3xx back as it is. */
  maxRedirects?: number;
  /**
   * The answer's body is cut off with PAYLOAD_TOO_LARGE past this many bytes; default 16 MiB, unlimited for streams.
   * For bodies read by someone else (an SDK); a caller reading with `json()` or `readBytesLimited` gives its bound there.
   */
  maxBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
/** Sent to the origin they were meant for only: dropped when a redirect leaves it. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'x-service-bridge-token'];

/** Why an outbound call was not made: the URL's host and the rule it broke, never a stack trace. */
export class OutboundRefusedError extends DomainError {
  override name = 'OutboundRefusedError';
  constructor(host: string, rule: string) {
    super('OUTBOUND_REFUSED', `Refused to contact ${host}: ${rule}`);
  }
}

/** The other side could not be reached or did not answer in time: worth another try later. */
export class OutboundUnreachableError extends DomainError {
  override name = 'OutboundUnreachableError';
  constructor(message: string, cause?: unknown) {
    super('UPSTREAM_FAILED', message, cause === undefined ? {} : { cause });
  }
}

const PRIVATE_RULE = 'it is a loopback or private address, and SERVICE_OUTBOUND_ALLOW_PRIVATE is not true';

/**
 * The one way out of the service: every call to a peer, registry, CMS site, GitHub, LLM provider
 * or webhook goes through here. Each call has a connect and a total timeout, follows no redirect
 * unless asked (and then re-checks every hop and drops credentials that would leave their
 * origin), caps the answer's size, and connects only to public addresses unless private ones
 * are allowed. The address is checked as resolved for the connection itself, so a name that
 * resolves differently a moment later cannot slip past the check.
 */
export function createOutboundHttp(policy: OutboundPolicy) {
  const refusedByLookup = new WeakSet<Error>();

  function lookup(hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      if (!policy.allowPrivate && addresses.some((entry) => isNonPublicAddress(entry.address))) {
        const refusal = new OutboundRefusedError(hostname, PRIVATE_RULE);
        refusedByLookup.add(refusal);
        return callback(refusal, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  }

  const dispatcher = new Agent({
    connect: { timeout: policy.connectTimeoutMs ?? 10_000, lookup: lookup as never },
    // Timeouts are per call (below); a stream may stay quiet for as long as its reader wants.
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  /** Refuses what the policy forbids before any connection: the scheme, credentials in the URL, a literal non-public address. */
  function check(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusedError(url.host || url.href.slice(0, 60), `only http and https URLs are allowed, not ${url.protocol}`);
    if (url.username || url.password) throw new OutboundRefusedError(url.host, 'credentials in a URL are not allowed');
    // Names are checked as they resolve, when connecting (lookup above); addresses here.
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (!policy.allowPrivate && isIP(literal) && isNonPublicAddress(literal) && !policy.exemptOrigins?.has(url.origin)) throw new OutboundRefusedError(url.host, PRIVATE_RULE);
  }

  function parse(target: string | URL): URL {
    try {
      return new URL(target);
    } catch {
      throw new OutboundRefusedError(String(target).slice(0, 60), 'not a valid URL');
    }
  }

  /** The call's own failure as the service reports it: refused, timed out, or unreachable. */
  function failure(error: unknown, url: URL, timedOut: boolean, callerAborted: boolean, timeoutMs: number): unknown {
    for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
      if (cause instanceof OutboundRefusedError || refusedByLookup.has(cause)) return cause;
    }
    if (callerAborted) return error;
    if (timedOut) return new OutboundUnreachableError(`${url.host} did not answer within ${timeoutMs} ms`);
    return new OutboundUnreachableError(`${url.host} is unreachable`, error);
  }

  /**
   * Each call is a client span (method, server, URL without its query, status), and carries the
   * trace context (`traceparent`) to the other side, so a call across instances is one trace.
   */
  async function request(target: string | URL, call: OutboundCall = {}): Promise<Response> {
    const url = parse(target);
    const method = (call.method ?? 'GET').toUpperCase();
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    return inSpan(method, { kind: SpanKind.CLIENT, attributes: { 'http.request.method': method, 'server.address': url.hostname, 'server.port': port, 'url.full': `${url.origin}${url.pathname}` } }, async (span) => {
      const response = await send(url, { ...call, headers: withTraceHeaders({ ...call.headers }) });
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 500) span.setAttribute('error.type', String(response.status));
      return response;
    });
  }

  async function send(target: URL, call: OutboundCall): Promise<Response> {
    let url = target;
    const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const timeout = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      timeout.abort(new DomainError('UPSTREAM_FAILED', `${url.host} did not answer within ${timeoutMs} ms`, { cause: 'timeout' }));
    }, timeoutMs);
    timer.unref();
    const signal = call.signal ? AbortSignal.any([call.signal, timeout.signal]) : timeout.signal;
    let method = (call.method ?? 'GET').toUpperCase();
    let body = call.body ?? undefined;
    let headers: Record<string, string> = { ...call.headers };
    const firstOrigin = url.origin;
    for (let hop = 0; ; hop++) {
      check(url);
      let response: Response;
      try {
        response = (await undiciFetch(url, { method, headers, body: body as never, signal, redirect: 'manual', dispatcher })) as unknown as Response;
      } catch (error) {
        clearTimeout(timer);
        throw failure(error, url, timedOut, call.signal?.aborted ?? false, timeoutMs);
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location && hop < (call.maxRedirects ?? 0)) {
        await response.body?.cancel().catch(() => undefined);
        const next = parse(new URL(location, url));
        if (next.origin !== firstOrigin) headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.includes(name.toLowerCase())));
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        url = next;
        continue;
      }
      if (call.streaming) clearTimeout(timer);
      const maxBytes = call.maxBytes ?? (call.streaming ? Infinity : DEFAULT_MAX_BYTES);
      return Number.isFinite(maxBytes) ? capped(response, maxBytes, url.host) : response;
    }
  }

  return {
    /** Fetch through the policy; the answer is a standard `Response`. */
    fetch: request,
    /** A `fetch`-shaped function with fixed options, for SDKs that take one (AI SDK providers, the MCP client). */
    fetchWith(defaults: Omit<OutboundCall, 'method' | 'headers' | 'body' | 'signal'>) {
      return (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
        const url = input instanceof Request ? input.url : input;
        const headers: Record<string, string> = {};
        new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined)).forEach((value, name) => (headers[name] = value));
        return request(url, { ...defaults, method: init.method ?? (input instanceof Request ? input.method : undefined), headers, body: (init.body ?? undefined) as OutboundCall['body'], signal: init.signal ?? undefined });
      };
    },
    /** The answer's body as JSON, refused past `maxBytes`. */
    async json<T>(response: Response, maxBytes = DEFAULT_MAX_BYTES, what = 'answer'): Promise<T> {
      const bytes = await readBytesLimited(response, maxBytes, what);
      try {
        return JSON.parse(bytes.toString('utf8')) as T;
      } catch {
        throw new DomainError('UPSTREAM_FAILED', `the ${what} is not JSON`);
      }
    },
    /**
     * The one address a connection to `target` may use: resolved once and checked like every call,
     * else OutboundRefusedError. For connections made on someone else's behalf (the checked proxy
     * the npm CLI goes through), which must then connect to exactly this address.
     */
    async addressFor(target: string | URL): Promise<{ address: string; family: number }> {
      const url = parse(target);
      check(url);
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      const family = isIP(literal);
      if (family) return { address: literal, family };
      const addresses = await dns.promises.lookup(url.hostname, { all: true });
      if (!policy.allowPrivate && addresses.some((entry) => isNonPublicAddress(entry.address))) throw new OutboundRefusedError(url.hostname, PRIVATE_RULE);
      const first = addresses[0];
      if (!first) throw new OutboundUnreachableError(`${url.hostname} has no address`);
      return { address: first.address, family: first.family };
    },
    /** Throws OutboundRefusedError when a URL may not be contacted (the npm CLI's registries, checked before it runs). */
    async assertAllowed(target: string | URL): Promise<void> {
      const url = parse(target);
      check(url);
      if (policy.allowPrivate || isIP(url.hostname.replace(/^\[|\]$/g, ''))) return;
      const addresses = await dns.promises.lookup(url.hostname, { all: true }).catch(() => []);
      if (addresses.some((entry) => isNonPublicAddress(entry.address))) throw new OutboundRefusedError(url.hostname, PRIVATE_RULE);
    },
    close: () => dispatcher.close(),
  };
}

/** The same answer with a body that errors with PAYLOAD_TOO_LARGE once more than `maxBytes` arrived. */
function capped(response: Response, maxBytes: number, host: string): Response {
  if (!response.body || [101, 204, 205, 304].includes(response.status)) return response;
  const declared = Number(response.headers.get('content-length') ?? 0);
  let seen = 0;
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (declared > maxBytes) controller.error(new DomainError('PAYLOAD_TOO_LARGE', `${host} answered more than ${maxBytes} bytes`));
      },
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(new DomainError('PAYLOAD_TOO_LARGE', `${host} answered more than ${maxBytes} bytes`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export type OutboundHttp = ReturnType<typeof createOutboundHttp>;
