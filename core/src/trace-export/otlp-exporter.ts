import { context } from '@opentelemetry/api';
import { ExportResultCode, suppressTracing, type ExportResult } from '@opentelemetry/core';
import { JsonMetricsSerializer, JsonTraceSerializer, ProtobufMetricsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** What the exporter needs of the outbound client: a fetch with its timeouts and size caps. */
export type ExportFetch = (url: string, call: { method: string; headers: Record<string, string>; body: Uint8Array; timeoutMs: number; maxBytes: number }) => Promise<Response>;

export interface OtlpTarget {
  /** `…/v1/<signal>`: the signal's OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT with that path. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_(<SIGNAL>_)HEADERS: a collector's credentials, never logged. */
  headers: Record<string, string>;
  timeoutMs: number;
}

interface Serializer<T> {
  serializeRequest(items: T): Uint8Array | undefined;
}

/**
 * OTLP/HTTP export through the service's outbound client (one way out: its timeouts, size caps
 * and redirect rule), instead of the SDK exporters' own HTTP stack. Its own calls are made with
 * tracing suppressed, so exporting makes no spans. One class for every signal: only the
 * serializer differs.
 */
class OutboundOtlpExporter<T> {
  private stopped = false;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly what: { items: string; collector: string },
    private readonly serializers: { json: Serializer<T>; protobuf: Serializer<T> },
    private readonly target: OtlpTarget,
    private readonly send: ExportFetch,
    private readonly onFailure: (message: string) => void,
  ) {}

  export(items: T, done: (result: ExportResult) => void): void {
    if (this.stopped) return done({ code: ExportResultCode.FAILED, error: new Error('the exporter is shut down') });
    const json = this.target.protocol === 'http/json';
    const body = (json ? this.serializers.json : this.serializers.protobuf).serializeRequest(items);
    if (!body) return done({ code: ExportResultCode.FAILED, error: new Error(`${this.what.items} could not be serialized`) });
    const headers = { ...this.target.headers, 'content-type': json ? 'application/json' : 'application/x-protobuf' };
    const sent = context
      .with(suppressTracing(context.active()), () => this.send(this.target.url, { method: 'POST', headers, body, timeoutMs: this.target.timeoutMs, maxBytes: 64 * 1024 }))
      .then(async (response) => {
        await response.body?.cancel().catch(() => undefined);
        if (response.ok) return done({ code: ExportResultCode.SUCCESS });
        this.onFailure(`the ${this.what.collector} answered HTTP ${response.status}`);
        done({ code: ExportResultCode.FAILED, error: new Error(`HTTP ${response.status}`) });
      })
      .catch((error: unknown) => {
        this.onFailure(`${this.what.items} could not be sent to the ${this.what.collector}: ${error instanceof Error ? error.message : String(error)}`);
        done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      })
      .finally(() => this.pending.delete(sent));
    this.pending.add(sent);
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.pending);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    await this.forceFlush();
  }
}

/** Spans, OTLP/HTTP, through the outbound client. */
export class OutboundOtlpTraceExporter extends OutboundOtlpExporter<ReadableSpan[]> implements SpanExporter {
  constructor(target: OtlpTarget, send: ExportFetch, onFailure: (message: string) => void) {
    super({ items: 'spans', collector: 'trace collector' }, { json: JsonTraceSerializer, protobuf: ProtobufTraceSerializer }, target, send, onFailure);
  }
}

/** Metrics, OTLP/HTTP, through the outbound client (cumulative temporality, the SDK's default). */
export class OutboundOtlpMetricExporter extends OutboundOtlpExporter<ResourceMetrics> {
  constructor(target: OtlpTarget, send: ExportFetch, onFailure: (message: string) => void) {
    super({ items: 'metrics', collector: 'metrics collector' }, { json: JsonMetricsSerializer, protobuf: ProtobufMetricsSerializer }, target, send, onFailure);
  }
}
