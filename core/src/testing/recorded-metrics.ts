import { AggregationTemporality, DataPointType, InMemoryMetricExporter, PeriodicExportingMetricReader, type MetricData } from '@opentelemetry/sdk-metrics';
import { startMetrics } from '../metrics-export/index.ts';

export interface MetricPoint {
  attributes: Record<string, unknown>;
  /** A sum's or gauge's value; a histogram's count and sum. */
  value: number | { count: number; sum: number | undefined };
}

/**
 * Metrics on for a test, into the SDK's in-memory exporter (cumulative; `prometheus` adds the
 * scrape): each instrument's data points as collected now, and a stop that unregisters it.
 */
export function recordMetrics(options: { prometheus?: boolean } = {}) {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const started = startMetrics({ env: {}, prometheus: options.prometheus ?? false, serviceName: 'service', version: '1.2.3', role: 'service', readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })] })!;
  return {
    async points(name: string): Promise<MetricPoint[]> {
      await started.flush();
      const metric = exporter.getMetrics().at(-1)?.scopeMetrics.flatMap((scope) => scope.metrics).find((candidate) => candidate.descriptor.name === name);
      return pointsOf(metric);
    },
    stop: () => started.shutdown(),
  };
}

function pointsOf(metric: MetricData | undefined): MetricPoint[] {
  if (!metric) return [];
  if (metric.dataPointType === DataPointType.HISTOGRAM) return metric.dataPoints.map((point) => ({ attributes: point.attributes, value: { count: point.value.count, sum: point.value.sum } }));
  if (metric.dataPointType === DataPointType.SUM || metric.dataPointType === DataPointType.GAUGE) return metric.dataPoints.map((point) => ({ attributes: point.attributes, value: point.value }));
  return [];
}
