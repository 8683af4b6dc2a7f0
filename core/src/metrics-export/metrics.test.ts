import { metrics } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { sseResponse } from '../a2a/index.ts';
import { createOutboundHttp } from '../http/index.ts';
import { meteredProvider, type LlmProvider, type LlmResult } from '../llm/index.ts';
import { createEventLog, createRunLeases, createRunStore, type RunMessage } from '../runs/index.ts';
import { observeHealth, recordHttpServerRequest, recordJobFailure, streamOpened } from '../telemetry/index.ts';
import { recordMetrics, startHttpRecorder, useTestDatabase } from '../testing/index.ts';
import { otlpTarget } from '../trace-export/index.ts';
import { createMetricsScrapeHandler, prometheusScrape, startMetrics, type Metrics } from './index.ts';

const t = useTestDatabase();

let started: Metrics | null = null;
let recorder: ReturnType<typeof recordMetrics> | null = null;
afterEach(async () => {
  await started?.shutdown();
  await recorder?.stop();
  started = recorder = null;
});

function inMemory(options: { prometheus?: boolean } = {}) {
  return (recorder = recordMetrics(options));
}

const message = (text: string): RunMessage => ({ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text }] });
const client = { type: 'a2a', id: 'client-metrics', clientId: 'c', grants: { allowedAgents: ['*'], permissions: ['list', 'read', 'execute'] } } as never;

describe('metrics configuration (the standard OTEL_* variables and SERVICE_METRICS_PROMETHEUS)', () => {
  it('registers nothing while neither OTLP metrics nor the scrape is on: every instrument is the API no-op', async () => {
    expect(startMetrics({ env: {}, prometheus: false, serviceName: 's', version: '1', role: 'service', send: () => Promise.reject(new Error('never')) })).toBeNull();
    expect(startMetrics({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' }, prometheus: false, serviceName: 's', version: '1', role: 'service', send: () => Promise.reject(new Error('never')) })).toBeNull();
    expect(prometheusScrape()).toBeNull();
    const meter = metrics.getMeterProvider().getMeter('service');
    expect(meter.createCounter('x').constructor.name).toBe('NoopCounterMetric');
    // Recording while off does nothing and throws nothing.
    recordHttpServerRequest({ method: 'GET', route: '/healthz', status: 200 }, 0.001);
    streamOpened('a2a')();
  });

  it('sends metrics to <endpoint>/v1/metrics, or the metrics endpoint as given, with the metrics-specific settings over the general ones', () => {
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }, 'metrics')).toMatchObject({ url: 'http://c:4318/v1/metrics', protocol: 'http/protobuf' });
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'https://m/otlp/metrics' }, 'metrics')?.url).toBe('https://m/otlp/metrics');
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-key=m' }, 'metrics')).toMatchObject({ protocol: 'http/protobuf', headers: { 'x-key': 'm' } });
    // Traces off, metrics on (and the other way round) by the signal's own exporter variable.
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }, 'metrics')).not.toBeNull();
    expect(otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' }, 'traces')).not.toBeNull();
  });
});

describe('each instrument moves', () => {
  it('http.server.request.duration: one data point per route, method and status', async () => {
    const reader = inMemory();
    recordHttpServerRequest({ method: 'POST', route: '/api/a2a', status: 200 }, 0.02);
    recordHttpServerRequest({ method: 'POST', route: '/api/a2a', status: 200 }, 0.04);
    recordHttpServerRequest({ method: 'GET', route: '/api/agents/:slug/status', status: 404 }, 0.001);
    expect(await reader.points('http.server.request.duration')).toEqual(
      expect.arrayContaining([
        { attributes: { 'http.request.method': 'POST', 'http.route': '/api/a2a', 'http.response.status_code': 200 }, value: { count: 2, sum: expect.closeTo(0.06, 6) } },
        { attributes: { 'http.request.method': 'GET', 'http.route': '/api/agents/:slug/status', 'http.response.status_code': 404 }, value: { count: 1, sum: 0.001 } },
      ]),
    );
  });

  it('runs started (the run store), steps and runs ended by state (the event log)', async () => {
    const reader = inMemory();
    const leases = createRunLeases(t.db.models, { profile: t.db.profile, serverTime: t.db.serverTime });
    const eventLog = createEventLog(t.db.models, { finished: leases.finished });
    const runs = createRunStore({ models: t.db.models, eventLog, leases });
    const { run } = await runs.create(client, { agent: '@acme/summarizer', message: message('one'), working: true });
    const { run: other } = await runs.create(client, { agent: '@acme/summarizer', message: message('two') });
    expect(await reader.points('service.runs.started')).toEqual([{ attributes: {}, value: 2 }]);
    await eventLog.append(run.id, { type: 'step', index: 0, stepId: 'draft', output: 'x', kind: 'llm', durationMs: 1_500 });
    await eventLog.appendAll(run.id, [{ type: 'step', index: 1, stepId: 'ask', output: 'y', kind: 'call', durationMs: 250 }, { type: 'status', status: { state: 'completed', timestamp: new Date().toISOString() }, final: true }]);
    await eventLog.append(other.id, { type: 'status', status: { state: 'failed', timestamp: new Date().toISOString() }, final: true });
    // A step stored by an earlier version (no timing) is no step duration.
    expect(await reader.points('service.run.step.duration')).toEqual(
      expect.arrayContaining([
        { attributes: { 'service.step.kind': 'llm' }, value: { count: 1, sum: 1.5 } },
        { attributes: { 'service.step.kind': 'call' }, value: { count: 1, sum: 0.25 } },
      ]),
    );
    expect(await reader.points('service.runs.ended')).toEqual(
      expect.arrayContaining([
        { attributes: { 'service.run.state': 'completed' }, value: 1 },
        { attributes: { 'service.run.state': 'failed' }, value: 1 },
      ]),
    );
  });

  it('gen_ai.client.operation.duration and gen_ai.client.token.usage (input, output) from the usage the provider reported', async () => {
    const reader = inMemory();
    const result: LlmResult = { text: 'ok', toolCalls: [], provider: 'openai-compatible', model: 'gpt-x', usage: { inputTokens: 120, outputTokens: 30 } };
    const provider: LlmProvider = {
      name: 'openai-compatible',
      model: 'gpt-x',
      complete: async () => result,
      async *stream() {
        yield { type: 'text-delta', text: 'ok' };
        yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 7, outputTokens: 3 } };
      },
    };
    const metered = meteredProvider(provider);
    await metered.complete({ messages: [{ role: 'user', content: 'secret prompt' }] });
    for await (const part of metered.stream({ messages: [{ role: 'user', content: 'secret prompt' }] })) void part;
    const failing = meteredProvider({ ...provider, complete: () => Promise.reject(Object.assign(new Error('rate limited'), { code: 'RATE_LIMITED' })) });
    await expect(failing.complete({ messages: [] })).rejects.toThrow('rate limited');
    const common = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-x' };
    expect(await reader.points('gen_ai.client.operation.duration')).toEqual(
      expect.arrayContaining([
        { attributes: common, value: { count: 2, sum: expect.any(Number) } },
        { attributes: { ...common, 'error.type': 'RATE_LIMITED' }, value: { count: 1, sum: expect.any(Number) } },
      ]),
    );
    expect(await reader.points('gen_ai.client.token.usage')).toEqual(
      expect.arrayContaining([
        { attributes: { ...common, 'gen_ai.token.type': 'input' }, value: { count: 2, sum: 127 } },
        { attributes: { ...common, 'gen_ai.token.type': 'output' }, value: { count: 2, sum: 33 } },
      ]),
    );
  });

  it('service.sse.streams.open: up while an A2A event stream is open, down once the client cancels it', async () => {
    const reader = inMemory();
    const response = sseResponse(async function* (signal) {
      yield 'data: {}\n\n';
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    });
    const body = response.body!.getReader();
    await body.read();
    expect(await reader.points('service.sse.streams.open')).toEqual([{ attributes: { 'service.stream.kind': 'a2a' }, value: 1 }]);
    await body.cancel();
    expect(await reader.points('service.sse.streams.open')).toEqual([{ attributes: { 'service.stream.kind': 'a2a' }, value: 0 }]);
  });

  it('service.jobs.failed by kind, and the health gauges read at collection', async () => {
    const reader = inMemory();
    recordJobFailure('publish');
    recordJobFailure('import-sync');
    recordJobFailure('import-sync');
    expect(await reader.points('service.jobs.failed')).toEqual(
      expect.arrayContaining([
        { attributes: { 'service.job.kind': 'publish' }, value: 1 },
        { attributes: { 'service.job.kind': 'import-sync' }, value: 2 },
      ]),
    );
    let up = true;
    const stop = observeHealth({ databaseUp: () => up });
    try {
      expect(await reader.points('service.database.up')).toEqual([{ attributes: {}, value: 1 }]);
      up = false;
      expect(await reader.points('service.database.up')).toEqual([{ attributes: {}, value: 0 }]);
      const utilization = (await reader.points('nodejs.eventloop.utilization'))[0]!.value as number;
      expect(utilization).toBeGreaterThanOrEqual(0);
      expect(utilization).toBeLessThanOrEqual(1);
      expect((await reader.points('process.memory.usage'))[0]!.value).toBeGreaterThan(0);
    } finally {
      stop();
    }
  });
});

describe('the Prometheus scrape (GET /metrics)', () => {
  const token = 'm'.repeat(40);
  const handler = createMetricsScrapeHandler({ token: () => token, scrape: prometheusScrape });
  const scrape = (headers: Record<string, string> = {}) => handler(new Request('http://127.0.0.1/metrics', { headers }));

  it('is 404 while off, 401 without the token or with another, and the exposition text with it', async () => {
    expect((await scrape({ authorization: `Bearer ${token}` })).status).toBe(404);
    inMemory({ prometheus: true });
    recordHttpServerRequest({ method: 'POST', route: '/api/a2a', status: 200 }, 0.02);
    recordJobFailure('import');
    const refused = await scrape();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await scrape({ authorization: `Bearer ${token}x` })).status).toBe(401);
    expect((await scrape({ authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` })).status).toBe(401);
    const answer = await scrape({ authorization: `Bearer ${token}` });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await answer.text();
    expect(text).toContain('# TYPE http_server_request_duration_seconds histogram');
    expect(text).toContain('http_server_request_duration_seconds_bucket{http_request_method="POST",http_route="/api/a2a",http_response_status_code="200",le="0.025"} 1');
    expect(text).toContain('http_server_request_duration_seconds_bucket{http_request_method="POST",http_route="/api/a2a",http_response_status_code="200",le="+Inf"} 1');
    expect(text).toContain('http_server_request_duration_seconds_count{http_request_method="POST",http_route="/api/a2a",http_response_status_code="200"} 1');
    expect(text).toContain('# TYPE service_jobs_failed_total counter');
    expect(text).toContain('service_jobs_failed_total{service_job_kind="import"} 1');
    expect(text).toMatch(/^target_info\{service_name="service",service_version="1\.2\.3",/m);
  });
});

describe('OTLP/HTTP metrics export through the outbound client', () => {
  it('posts the metrics to <endpoint>/v1/metrics as OTLP JSON with the collector headers', async () => {
    const collector = await startHttpRecorder();
    try {
      const outbound = createOutboundHttp({ allowPrivate: true });
      const failures: string[] = [];
      started = startMetrics({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-key' },
        prometheus: false,
        serviceName: 'service',
        version: '1',
        role: 'service',
        send: (url, call) => outbound.fetch(url, call),
        onExportFailure: (failure) => failures.push(failure),
      });
      expect(started?.scrape).toBeNull();
      recordJobFailure('publish');
      await started!.flush();
      expect(failures).toEqual([]);
      const request = collector.received.at(-1)!;
      expect(request.url).toBe('/v1/metrics');
      expect(request.headers).toMatchObject({ 'content-type': 'application/json', authorization: 'Bearer collector-key' });
      const body = JSON.parse(request.body) as { resourceMetrics: { scopeMetrics: { metrics: { name: string; sum?: { dataPoints: { asInt?: number | string }[] } }[] }[] }[] };
      const failed = body.resourceMetrics.flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics)).find((metric) => metric.name === 'service.jobs.failed');
      expect(Number(failed?.sum?.dataPoints[0]?.asInt)).toBe(1);
    } finally {
      await collector.close();
    }
  });
});
