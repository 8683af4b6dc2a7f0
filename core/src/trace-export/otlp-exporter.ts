import { context } from '@opentelemetry/api';
import { ExportResultCode, suppressTracing, type ExportResult } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** What the exporter needs of the outbound client: a fetch with its timeouts and size caps. */
export type ExportFetch = (url: string, call: { method: string; headers: Record<string, string>; body: Uint8Array; timeoutMs: number; maxBytes: number }) => Promise<Response>;

export interface OtlpTarget {
  /** `…/v1/traces`: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, or OTEL_EXPORTER_OTLP_ENDPOINT with that path. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_(TRACES_)HEADERS: a collector's credentials, never logged. */
  headers: Record<string, string>;
  timeoutMs: number;
}

/**
 * OTLP/HTTP trace export through the service's outbound client (one way out: its timeouts, size
 * caps and redirect rule), instead of the SDK exporter's own HTTP stack. Its own calls are made
 * with tracing suppressed, so exporting spans makes no spans.
 */
export class OutboundOtlpTraceExporter implements SpanExporter {
  private stopped = false;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly target: OtlpTarget,
    private readonly send: ExportFetch,
    private readonly onFailure: (message: string) => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.stopped) return done({ code: ExportResultCode.FAILED, error: new Error('the exporter is shut down') });
    const json = this.target.protocol === 'http/json';
    const body = json ? JsonTraceSerializer.serializeRequest(spans) : ProtobufTraceSerializer.serializeRequest(spans);
    if (!body) return done({ code: ExportResultCode.FAILED, error: new Error('spans could not be serialized') });
    const headers = { ...this.target.headers, 'content-type': json ? 'application/json' : 'application/x-protobuf' };
    const sent = context
      .with(suppressTracing(context.active()), () => this.send(this.target.url, { method: 'POST', headers, body, timeoutMs: this.target.timeoutMs, maxBytes: 64 * 1024 }))
      .then(async (response) => {
        await response.body?.cancel().catch(() => undefined);
        if (response.ok) return done({ code: ExportResultCode.SUCCESS });
        this.onFailure(`the trace collector answered HTTP ${response.status}`);
        done({ code: ExportResultCode.FAILED, error: new Error(`HTTP ${response.status}`) });
      })
      .catch((error: unknown) => {
        this.onFailure(`spans could not be sent to the trace collector: ${error instanceof Error ? error.message : String(error)}`);
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
