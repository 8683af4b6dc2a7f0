import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { startTracing } from '../trace-export/index.ts';

/** Tracing on for a test, into memory: the spans finished so far, and a stop that unregisters it. */
export function recordSpans() {
  const exporter = new InMemorySpanExporter();
  const tracing = startTracing({ env: {}, serviceName: 'test', version: '0', role: 'test', exporter })!;
  return {
    async finished() {
      await tracing.flush();
      return exporter.getFinishedSpans();
    },
    stop: () => tracing.shutdown(),
  };
}
