import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { OutboundOtlpTraceExporter, type ExportFetch, type OtlpTarget } from './otlp-exporter.ts';

type Env = Record<string, string | undefined>;

/** Where traces go per the standard OTEL_* variables, or null when tracing is off (the default). */
export const otlpTraceTarget = (env: Env): OtlpTarget | null => otlpTarget(env, 'traces');

/**
 * Where one signal goes per the standard OTEL_* variables (`OTEL_<SIGNAL>_EXPORTER`, the
 * signal's `OTEL_EXPORTER_OTLP_<SIGNAL>_*` over the general `OTEL_EXPORTER_OTLP_*`), or null when
 * that signal's export is off (the default).
 */
export function otlpTarget(env: Env, signal: 'traces' | 'metrics'): OtlpTarget | null {
  const SIGNAL = signal.toUpperCase();
  const own = (name: string) => env[`OTEL_EXPORTER_OTLP_${SIGNAL}_${name}`];
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const exporters = (env[`OTEL_${SIGNAL}_EXPORTER`] ?? 'otlp').split(',').map((value) => value.trim().toLowerCase());
  if (!exporters.includes('otlp')) return null;
  const endpoint = own('ENDPOINT')?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint && !base) return null;
  const url = endpoint || `${base!.replace(/\/+$/, '')}/v1/${signal}`;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new Error(`OTEL_EXPORTER_OTLP_${endpoint ? `${SIGNAL}_` : ''}ENDPOINT: is not an http(s) URL`);
  const protocol = (own('PROTOCOL') ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL: "${protocol}" is not supported; use http/protobuf or http/json`);
  const timeout = Number(own('TIMEOUT') ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000);
  return { url, protocol, headers: { ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseHeaders(own('HEADERS')) }, timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 10_000 };
}

/** `key=value,key2=value2`, values URL-encoded (the OTLP exporter specification). */
function parseHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim()).toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // A malformed pair is skipped, as the SDK does.
    }
  }
  return headers;
}

/** The `OTEL_BSP_*` variables (the trace SDK no longer reads them itself): unset or invalid ones keep the SDK's defaults. */
function batchOptions(env: Env): { scheduledDelayMillis?: number; maxQueueSize?: number; maxExportBatchSize?: number; exportTimeoutMillis?: number } {
  const read = (name: string) => {
    const value = Number(env[name]);
    return env[name] !== undefined && Number.isInteger(value) && value > 0 ? value : undefined;
  };
  const options = { scheduledDelayMillis: read('OTEL_BSP_SCHEDULE_DELAY'), maxQueueSize: read('OTEL_BSP_MAX_QUEUE_SIZE'), maxExportBatchSize: read('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'), exportTimeoutMillis: read('OTEL_BSP_EXPORT_TIMEOUT') };
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/** `OTEL_RESOURCE_ATTRIBUTES` (`k=v,…`, URL-encoded) and `OTEL_SERVICE_NAME`, over the service's own. */
export function resourceAttributes(env: Env, own: { serviceName: string; version: string; role: string }): Record<string, string> {
  const attributes: Record<string, string> = { 'service.name': own.serviceName, 'service.version': own.version, 'service.namespace': 'agent-platform', 'service.instance.role': own.role };
  Object.assign(attributes, parseHeaders(env.OTEL_RESOURCE_ATTRIBUTES));
  if (env.OTEL_SERVICE_NAME?.trim()) attributes['service.name'] = env.OTEL_SERVICE_NAME.trim();
  return attributes;
}

/** One line per minute at most: a collector that is down must not flood the log. */
export function oncePerMinute(report: ((message: string) => void) | undefined): (message: string) => void {
  let warned = 0;
  return (message) => {
    if (Date.now() - warned < 60_000) return;
    warned = Date.now();
    report?.(message);
  };
}

export interface Tracing {
  /** Sends what is buffered (at stop; tests). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let active: { provider: TracerProvider; manager: AsyncLocalStorageContextManager } | null = null;

/**
 * Registers the tracer provider, the context manager and the W3C propagators globally. With
 * `exporter` given (tests: an in-memory one) spans go there; else to the OTLP target of the
 * environment. Returns null, registering nothing, when tracing is off.
 */
export function startTracing(options: { env: Env; serviceName: string; version: string; role: string; send?: ExportFetch; exporter?: SpanExporter; onExportFailure?: (message: string) => void }): Tracing | null {
  let processor: SpanProcessor;
  if (options.exporter) {
    processor = new BatchSpanProcessor({ exporter: options.exporter, scheduledDelayMillis: 50 });
  } else {
    const target = otlpTraceTarget(options.env);
    if (!target || !options.send) return null;
    processor = new BatchSpanProcessor({ exporter: new OutboundOtlpTraceExporter(target, options.send, oncePerMinute(options.onExportFailure)), ...batchOptions(options.env) });
  }
  if (active) void stop();
  const provider = new TracerProvider({ resource: resourceFromAttributes(resourceAttributes(options.env, options)), spanProcessors: [processor] });
  const manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  active = { provider, manager };
  const registered = active;

  async function stop() {
    const current = active;
    if (!current) return;
    active = null;
    await current.provider.shutdown();
    current.manager.disable();
    trace.disable();
    context.disable();
    propagation.disable();
  }
  return {
    flush: () => registered.provider.forceFlush(),
    shutdown: () => (active === registered ? stop() : Promise.resolve()),
  };
}
