import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutboundHttp } from '../http/index.ts';
import { createMemoryLogger } from '../log/index.ts';
import { inSpan } from '../telemetry/index.ts';
import { startHttpRecorder } from '../testing/index.ts';
import { otlpTraceTarget, startTracing, type Tracing } from './index.ts';

let tracing: Tracing | null = null;
afterEach(async () => {
  await tracing?.shutdown();
  tracing = null;
});

const recorder = startHttpRecorder;

describe('trace export configuration (the standard OTEL_* variables)', () => {
  it('is off unless an OTLP endpoint is set, and off when the SDK is disabled or another exporter is chosen', () => {
    expect(otlpTraceTarget({})).toBeNull();
    expect(otlpTraceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(otlpTraceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(startTracing({ env: {}, serviceName: 's', version: '1', role: 'service', send: () => Promise.reject(new Error('never')) })).toBeNull();
  });

  it('appends /v1/traces to the base endpoint, takes the signal endpoint as it is, and reads headers and protocol', () => {
    expect(otlpTraceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toMatchObject({ url: 'http://collector:4318/v1/traces', protocol: 'http/protobuf', headers: {} });
    expect(otlpTraceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/traces' })?.url).toBe('https://b/otlp/traces');
    expect(otlpTraceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20abc,x-tenant=t1', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({ headers: { authorization: 'Bearer abc', 'x-tenant': 't1' }, protocol: 'http/json' });
    expect(() => otlpTraceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/not supported/);
    expect(() => otlpTraceTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/http\(s\) URL/);
  });
});

describe('tracing through the outbound client and the logger', () => {
  it('makes each outbound call a client span and sends its trace context, without the URL query', async () => {
    const exporter = new InMemorySpanExporter();
    tracing = startTracing({ env: {}, serviceName: 's', version: '1', role: 'service', exporter });
    const site = await recorder();
    try {
      const outbound = createOutboundHttp({ allowPrivate: true });
      const traceId = await inSpan('run', {}, async (span) => {
        await (await outbound.fetch(`${site.url}/wp-json/wp/v2/posts/1?context=edit&token=secret`)).text();
        return span.spanContext().traceId;
      });
      await tracing!.flush();
      const client = exporter.getFinishedSpans().find((span) => span.name === 'GET')!;
      expect(client.spanContext().traceId).toBe(traceId);
      expect(client.attributes).toMatchObject({ 'http.request.method': 'GET', 'server.address': '127.0.0.1', 'http.response.status_code': 200, 'url.full': `${site.url}/wp-json/wp/v2/posts/1` });
      expect(JSON.stringify(client.attributes)).not.toContain('secret');
      // The site was told which trace and span called it (W3C traceparent).
      expect(site.received[0]!.headers.traceparent).toBe(`00-${traceId}-${client.spanContext().spanId}-01`);
    } finally {
      await site.close();
    }
  });

  it('names the active trace and span on every log line written inside a span, and nothing outside', async () => {
    tracing = startTracing({ env: {}, serviceName: 's', version: '1', role: 'service', exporter: new InMemorySpanExporter() });
    const logger = createMemoryLogger();
    const ids = await inSpan('work', {}, async (span) => {
      logger.info('inside');
      return span.spanContext();
    });
    logger.info('outside');
    expect(logger.records[0]!.fields).toMatchObject({ trace_id: ids.traceId, span_id: ids.spanId });
    expect(logger.records[1]!.fields.trace_id).toBeUndefined();
  });

  it('leaves everything a no-op while tracing is off: no span records, no header is sent', async () => {
    const site = await recorder();
    try {
      await inSpan('run', {}, async (span) => {
        expect(span.isRecording()).toBe(false);
        await (await createOutboundHttp({ allowPrivate: true }).fetch(site.url)).text();
      });
      expect(site.received[0]!.headers.traceparent).toBeUndefined();
      expect(trace.getActiveSpan()).toBeUndefined();
    } finally {
      await site.close();
    }
  });
});

describe('OTLP/HTTP export through the outbound client', () => {
  it('posts spans to the collector as OTLP JSON with its headers, and exporting makes no span of its own', async () => {
    const collector = await recorder();
    try {
      const outbound = createOutboundHttp({ allowPrivate: true });
      const failures: string[] = [];
      tracing = startTracing({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-key', OTEL_SERVICE_NAME: 'agents-a' },
        serviceName: 'service',
        version: '1.2.3',
        role: 'service',
        send: (url, call) => outbound.fetch(url, call),
        onExportFailure: (message) => failures.push(message),
      });
      const traceId = await inSpan('invoke_agent @acme/summarizer', {}, async (span) => span.spanContext().traceId);
      await tracing!.flush();
      expect(failures).toEqual([]);
      expect(collector.received).toHaveLength(1);
      const [request] = collector.received;
      expect(request!.url).toBe('/v1/traces');
      expect(request!.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer collector-key' });
      const body = JSON.parse(request!.body) as { resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: { name: string; traceId: string }[] }[] }[] };
      const spans = body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
      // Only the span made here: the export's own POST is made with tracing suppressed.
      expect(spans.map((span) => span.name)).toEqual(['invoke_agent @acme/summarizer']);
      expect(spans[0]!.traceId).toBe(traceId);
      const resource = Object.fromEntries(body.resourceSpans[0]!.resource.attributes.map((attribute) => [attribute.key, attribute.value.stringValue]));
      expect(resource).toMatchObject({ 'service.name': 'agents-a', 'service.version': '1.2.3' });
    } finally {
      await collector.close();
    }
  });

  it('sends a batch after OTEL_BSP_SCHEDULE_DELAY, without being flushed', async () => {
    const collector = await recorder();
    try {
      const outbound = createOutboundHttp({ allowPrivate: true });
      tracing = startTracing({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '50' }, serviceName: 's', version: '1', role: 'service', send: (url, call) => outbound.fetch(url, call) });
      await inSpan('scheduled', {}, async () => undefined);
      for (const deadline = Date.now() + 2_000; collector.received.length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
      // The SDK's default would wait 5 s.
      expect(collector.received.map((request) => request.url)).toEqual(['/v1/traces']);
    } finally {
      await collector.close();
    }
  });
});
