import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { findFreePort } from '@service/core/net';
import { ensureJaeger } from './jaeger-binary.ts';
import { stopChild } from './stop-child.ts';

/** A span as Jaeger stored it, in OTLP terms (ids are lowercase hex). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Undefined for a trace's root span. */
  parentSpanId: string | undefined;
  name: string;
  /** The `service.name` of the span's resource. */
  serviceName: string;
  attributes: Record<string, unknown>;
}

export interface ReceivedTrace {
  traceId: string;
  spans: ReceivedSpan[];
}

export interface Jaeger {
  /** Base URL of the OTLP/HTTP receiver: traces go to `${otlpHttpUrl}/v1/traces`. */
  otlpHttpUrl: string;
  /** Base URL of Jaeger's query service (`/api/v3/...`). */
  queryUrl: string;
  /** The traces stored so far, of one service or of all. */
  traces(serviceName?: string): Promise<ReceivedTrace[]>;
  /** What the process printed, for a failing test's message. */
  output(): string;
  stop(): Promise<void>;
}

const READY = /Everything is ready\. Begin running and processing data\./;
const QUERY_ADDRESS = /"http_addr":\s*"([^"]+)"/;
const STARTUP_TIMEOUT_MS = 30_000;

/**
 * Jaeger v2 (the OpenTelemetry Collector with Jaeger's extensions), in-memory storage, receiving
 * OTLP over HTTP on a free loopback port; its query API binds port 0 and the address is read from
 * its log. The binary is built from the Go module proxy on first use (see jaeger-binary.ts).
 */
export async function startJaeger(): Promise<Jaeger> {
  const binary = await ensureJaeger();
  let lastError: Error | undefined;
  // The OTLP port is picked before Jaeger binds it, so another process may take it meanwhile.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(binary, await findFreePort());
    } catch (error) {
      lastError = error as Error;
      if (!/address already in use/.test(lastError.message)) throw lastError;
    }
  }
  throw lastError!;
}

function configYaml(otlpPort: number): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: info
      encoding: json
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
  jaeger_query:
    storage:
      traces: memstore
    enable_tracing: false
    http:
      endpoint: 127.0.0.1:0
    grpc:
      endpoint: 127.0.0.1:0
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlpPort}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

async function startOnce(binary: string, otlpPort: number): Promise<Jaeger> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jaeger-'));
  const configFile = path.join(dir, 'config.yaml');
  writeFileSync(configFile, configYaml(otlpPort));
  const child = spawn(binary, ['--config', configFile], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let queryAddress: string;
  try {
    queryAddress = await waitUntilReady(child, () => output);
  } catch (error) {
    await stopChild(child, dir);
    throw error;
  }
  const queryUrl = `http://${queryAddress}`;
  return {
    otlpHttpUrl: `http://127.0.0.1:${otlpPort}`,
    queryUrl,
    traces: (serviceName) => fetchTraces(queryUrl, serviceName),
    output: () => output,
    stop: () => stopChild(child, dir),
  };
}

function waitUntilReady(child: ChildProcessByStdio<null, Readable, Readable>, output: () => string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const finish = (error?: Error) => {
      clearTimeout(timer);
      child.stdout.removeListener('data', check);
      child.stderr.removeListener('data', check);
      child.removeListener('exit', onExit);
      child.removeListener('error', onError);
      if (error) reject(error);
      else resolve(QUERY_ADDRESS.exec(output())![1]!);
    };
    const check = () => {
      if (READY.test(output()) && QUERY_ADDRESS.test(output())) finish();
    };
    const onExit = (code: number | null) => finish(new Error(`Jaeger exited with code ${code} before it was ready:\n${output()}`));
    const onError = (error: Error) => finish(new Error(`Jaeger did not start: ${error.message}`));
    const timer = setTimeout(() => finish(new Error(`Jaeger was not ready within ${STARTUP_TIMEOUT_MS / 1000} s:\n${output()}`)), STARTUP_TIMEOUT_MS);
    // Registered after the collecting listeners, so output() already holds each chunk.
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url);
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    throw new Error(`Jaeger answered ${url} with ${response.status} and no JSON: ${text.slice(0, 500)}`);
  }
}

/** Jaeger's APIv3 wants a service and a start-time window; the window here covers any test's spans. */
async function fetchTraces(queryUrl: string, serviceName?: string): Promise<ReceivedTrace[]> {
  const services = serviceName === undefined ? await fetchServices(queryUrl) : [serviceName];
  const traces = new Map<string, ReceivedTrace>();
  for (const service of services) {
    const query = new URLSearchParams({
      'query.service_name': service,
      'query.start_time_min': new Date(Date.UTC(2000, 0, 1)).toISOString(),
      'query.start_time_max': new Date(Date.now() + 24 * 3600_000).toISOString(),
      'query.num_traces': '1000',
    });
    const url = `${queryUrl}/api/v3/traces?${query}`;
    const { status, body } = await getJson(url);
    // APIv3 answers 404 when no trace matches.
    if (status === 404) continue;
    if (status !== 200) throw new Error(`Jaeger answered ${url} with ${status}: ${JSON.stringify(body)}`);
    for (const span of normalizeOtlp((body as { result?: OtlpTracesData }).result)) {
      const trace = traces.get(span.traceId) ?? { traceId: span.traceId, spans: [] };
      if (!trace.spans.some((s) => s.spanId === span.spanId)) trace.spans.push(span);
      traces.set(span.traceId, trace);
    }
  }
  return [...traces.values()];
}

async function fetchServices(queryUrl: string): Promise<string[]> {
  const { status, body } = await getJson(`${queryUrl}/api/v3/services`);
  if (status !== 200) throw new Error(`Jaeger answered /api/v3/services with ${status}: ${JSON.stringify(body)}`);
  return (body as { services?: string[] }).services ?? [];
}

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  bytesValue?: string;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpTracesData {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: OtlpKeyValue[] }[] }[];
  }[];
}

function normalizeOtlp(data: OtlpTracesData | undefined): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of data?.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId.toLowerCase(),
          spanId: span.spanId.toLowerCase(),
          parentSpanId: span.parentSpanId ? span.parentSpanId.toLowerCase() : undefined,
          name: span.name,
          serviceName: String(resource['service.name'] ?? ''),
          attributes: attributesOf(span.attributes),
        });
      }
    }
  }
  return spans;
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/** OTLP JSON's AnyValue as a plain value; 64-bit integers beyond 2^53 stay strings. */
function valueOf(value: OtlpAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) {
    const n = Number(value.intValue);
    return Number.isSafeInteger(n) ? n : String(value.intValue);
  }
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return undefined;
}
