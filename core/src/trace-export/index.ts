export { otlpTraceTarget, startTracing, type Tracing } from './setup.ts';
export { OutboundOtlpTraceExporter, type ExportFetch, type OtlpTarget } from './otlp-exporter.ts';
