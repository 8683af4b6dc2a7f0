import { metrics, ValueType, type BatchObservableCallback, type Counter, type Histogram, type Meter, type MeterProvider, type UpDownCounter } from '@opentelemetry/api';
import { performance } from 'node:perf_hooks';

/**
 * The service's metrics, through the OpenTelemetry API only: until `startMetrics` registers a
 * meter provider (OTLP metrics or the Prometheus endpoint turned on), every instrument is the
 * API's no-op. Instruments are made once per provider: the provider is compared at each record
 * (one global read), so a provider registered later (or replaced by a test) is used from then on.
 */
let made: { provider: MeterProvider; instruments: Instruments } | null = null;

function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (made?.provider !== provider) made = { provider, instruments: createInstruments(provider.getMeter('service')) };
  return made.instruments;
}

/** The semantic conventions' advised buckets (seconds; tokens). */
const HTTP_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const GEN_AI_SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const GEN_AI_TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

type Instruments = ReturnType<typeof createInstruments>;

function createInstruments(meter: Meter) {
  return {
    httpServerDuration: meter.createHistogram('http.server.request.duration', { unit: 's', description: 'Duration of machine-facing (seam) HTTP requests', advice: { explicitBucketBoundaries: HTTP_SECONDS } }) as Histogram,
    rpcServerDuration: meter.createHistogram('rpc.server.call.duration', { unit: 's', description: 'Duration of gRPC calls (the A2A gRPC binding), streams to their end', advice: { explicitBucketBoundaries: HTTP_SECONDS } }) as Histogram,
    runsStarted: meter.createCounter('service.runs.started', { unit: '{run}', valueType: ValueType.INT, description: 'Runs created' }) as Counter,
    runsEnded: meter.createCounter('service.runs.ended', { unit: '{run}', valueType: ValueType.INT, description: 'Runs that reached a terminal state, by state' }) as Counter,
    stepDuration: meter.createHistogram('service.run.step.duration', { unit: 's', description: 'Duration of finished run steps, by kind', advice: { explicitBucketBoundaries: GEN_AI_SECONDS } }) as Histogram,
    llmDuration: meter.createHistogram('gen_ai.client.operation.duration', { unit: 's', description: 'Duration of LLM calls', advice: { explicitBucketBoundaries: GEN_AI_SECONDS } }) as Histogram,
    llmTokens: meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}', valueType: ValueType.INT, description: 'Tokens used per LLM call, by gen_ai.token.type', advice: { explicitBucketBoundaries: GEN_AI_TOKENS } }) as Histogram,
    sseOpen: meter.createUpDownCounter('service.sse.streams.open', { unit: '{stream}', valueType: ValueType.INT, description: 'Event streams open now, by kind' }) as UpDownCounter,
    jobFailures: meter.createCounter('service.jobs.failed', { unit: '{job}', valueType: ValueType.INT, description: 'Background jobs (publish, import, import sync) that failed, by kind' }) as Counter,
  };
}

/** One machine-facing request's answer (the seam listener): `route` is the matched pattern, never the path. */
export function recordHttpServerRequest(attributes: { method: string; route: string; status: number }, seconds: number): void {
  instruments().httpServerDuration.record(seconds, { 'http.request.method': attributes.method, 'http.route': attributes.route, 'http.response.status_code': attributes.status });
}

/** One gRPC call's end (RPC conventions): `method` is the proto method's name, `statusCode` the gRPC status (0: OK). */
export function recordRpcServerCall(attributes: { service: string; method: string; statusCode: number }, seconds: number): void {
  instruments().rpcServerDuration.record(seconds, { 'rpc.system': 'grpc', 'rpc.service': attributes.service, 'rpc.method': attributes.method, 'rpc.grpc.status_code': attributes.statusCode });
}

/**
 * What one append to a run's log did: a `created` event starts a run; a `step` event that carries
 * its timing is a finished step; reaching a terminal state (`endedAs`) ends the run. Read from the
 * log's single write path, so the metrics and the run timeline agree by construction.
 */
export function recordRunAppend(events: readonly RunEventLike[], endedAs: string | null): void {
  for (const event of events) {
    if (event.type === 'created') instruments().runsStarted.add(1);
    else if (event.type === 'step' && typeof event.durationMs === 'number' && !event.failed) instruments().stepDuration.record(event.durationMs / 1000, { 'service.step.kind': event.kind ?? 'llm' });
  }
  if (endedAs) instruments().runsEnded.add(1, { 'service.run.state': endedAs });
}

type RunEventLike = { type: string; durationMs?: number; kind?: string; failed?: true };

/** One LLM call (GenAI conventions): its duration, and its tokens when the provider reported them. */
export function recordLlmCall(
  attributes: { provider: string; model: string; errorType?: string },
  seconds: number,
  usage?: { inputTokens?: number; outputTokens?: number },
): void {
  const common = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': attributes.provider, 'gen_ai.request.model': attributes.model };
  const { llmDuration, llmTokens } = instruments();
  llmDuration.record(seconds, attributes.errorType ? { ...common, 'error.type': attributes.errorType } : common);
  if (usage?.inputTokens !== undefined) llmTokens.record(usage.inputTokens, { ...common, 'gen_ai.token.type': 'input' });
  if (usage?.outputTokens !== undefined) llmTokens.record(usage.outputTokens, { ...common, 'gen_ai.token.type': 'output' });
}

/** Counts an event stream as open until the returned function is called (once; later calls do nothing). */
export function streamOpened(kind: 'a2a' | 'a2a-grpc' | 'widget'): () => void {
  const gauge = instruments().sseOpen;
  gauge.add(1, { 'service.stream.kind': kind });
  let open = true;
  return () => {
    if (!open) return;
    open = false;
    gauge.add(-1, { 'service.stream.kind': kind });
  };
}

export function recordJobFailure(kind: 'publish' | 'promote' | 'import' | 'import-sync'): void {
  instruments().jobFailures.add(1, { 'service.job.kind': kind });
}

/**
 * Gauges read when metrics are collected (never between): whether the database answers and has
 * room, and the process's event-loop utilisation and resident memory. Registered on the provider
 * in force; returns the function that removes them.
 */
export function observeHealth(source: { databaseUp: () => boolean }): () => void {
  const meter = metrics.getMeter('service');
  const database = meter.createObservableGauge('service.database.up', { description: '1 while the database answers and has room for writes, else 0' });
  const eventLoop = meter.createObservableGauge('nodejs.eventloop.utilization', { unit: '1', description: 'Event loop utilization since the previous collection' });
  const memory = meter.createObservableUpDownCounter('process.memory.usage', { unit: 'By', description: 'Resident memory of the process' });
  let last = performance.eventLoopUtilization();
  const callback: BatchObservableCallback = (result) => {
    result.observe(database, source.databaseUp() ? 1 : 0);
    const now = performance.eventLoopUtilization();
    result.observe(eventLoop, performance.eventLoopUtilization(now, last).utilization);
    last = now;
    result.observe(memory, process.memoryUsage.rss());
  };
  meter.addBatchObservableCallback(callback, [database, eventLoop, memory]);
  return () => meter.removeBatchObservableCallback(callback, [database, eventLoop, memory]);
}
