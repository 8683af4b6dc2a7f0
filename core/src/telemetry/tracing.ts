import { context, propagation, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';

/**
 * The service's spans, through the OpenTelemetry API only: until `startTracing` registers a
 * provider (OTEL_* variables set), every call here is the API's no-op and costs next to nothing.
 * Asked for at each span, not kept: a tracer taken once would outlive its provider's shutdown.
 */
const tracer = () => trace.getTracer('service');

export { SpanKind };

type HeaderBag = Record<string, string | string[] | undefined>;

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; by default the active context. */
  parent?: Context;
  /** Spans this one follows from without being their child (a resumed run and the answer that resumed it). */
  links?: Context[];
}

const headerGetter = {
  keys: (carrier: HeaderBag) => Object.keys(carrier),
  get: (carrier: HeaderBag, key: string) => carrier[key.toLowerCase()],
};

/** The trace context a caller sent (`traceparent`, `tracestate`), as the parent of what this request does. */
export function contextFromHeaders(headers: HeaderBag | Headers): Context {
  let bag: HeaderBag = headers as HeaderBag;
  if (headers instanceof Headers) {
    bag = {};
    headers.forEach((value, name) => (bag[name] = value));
  }
  return propagation.extract(context.active(), bag, headerGetter);
}

/** Adds the active trace context (`traceparent`, `tracestate`) to outgoing headers; nothing when no span is recording. */
export function withTraceHeaders(headers: Record<string, string>, from: Context = context.active()): Record<string, string> {
  propagation.inject(from, headers);
  return headers;
}

/** The active span's context as a `traceparent` value, to be stored and continued later (a run started now, executed later). */
export function currentTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The context a stored `traceparent` names, for work that continues a trace begun elsewhere or earlier. */
export function contextFromTraceparent(traceparent: string | null | undefined): Context {
  return traceparent ? propagation.extract(context.active(), { traceparent }, headerGetter) : context.active();
}

/**
 * Runs `work` in a span (a child of `parent`, by default the active context) and ends it: the
 * status is an error when `work` throws, naming its code or class, never its message or data.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { span, context: active } = startSpan(name, options);
  try {
    return await context.with(active, () => work(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Starts a span the caller ends (a request whose answer streams on after the handler returned). */
export function startSpan(name: string, options: SpanOptions): { span: Span; context: Context } {
  const parent = options.parent ?? context.active();
  const parentSpanId = trace.getSpanContext(parent)?.spanId;
  // A link to the parent itself says nothing more.
  const links = (options.links ?? []).flatMap((linked) => {
    const spanContext = trace.getSpanContext(linked);
    return spanContext && trace.isSpanContextValid(spanContext) && spanContext.spanId !== parentSpanId ? [{ context: spanContext }] : [];
  });
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}), ...(links.length ? { links } : {}) }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** The context work runs in now (to link a later span to what caused it). */
export const activeContext = (): Context => context.active();

/** Runs `work` with `ctx` active. */
export function inContext<T>(ctx: Context, work: () => T): T {
  return context.with(ctx, work);
}

export function failSpan(span: Span, error: unknown): void {
  const type = errorType(error);
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** What a failure is called in telemetry (`error.type`): its code, else its class; never its message. */
export function errorType(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.name : 'Error';
}

/** The ids a log line carries while a span is recording (trace_id, span_id), else nothing. */
export function traceIdsForLog(): { trace_id: string; span_id: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
