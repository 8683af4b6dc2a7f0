export { oncePerMinute, otlpTarget, otlpTraceTarget, resourceAttributes, startTracing, type Tracing } from './setup.ts';
export { OutboundOtlpMetricExporter, OutboundOtlpTraceExporter, type ExportFetch, type OtlpTarget } from './otlp-exporter.ts';
