import { metrics } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, MetricReader, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { oncePerMinute, otlpTarget, OutboundOtlpMetricExporter, resourceAttributes, type ExportFetch } from '../trace-export/index.ts';
import { toPrometheusText } from './prometheus-text.ts';

type Env = Record<string, string | undefined>;

/** A reader that collects only when asked: each scrape of the Prometheus endpoint. */
class ScrapeReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Metrics {
  /** The Prometheus text of every instrument now; null when the scrape endpoint is off. */
  scrape: (() => Promise<string>) | null;
  /** Exports what is recorded (at stop; tests). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let active: { provider: MeterProvider; metrics: Metrics } | null = null;

/** The scrape of the registered provider, or null when the Prometheus endpoint is off. */
export function prometheusScrape(): (() => Promise<string>) | null {
  return active?.metrics.scrape ?? null;
}

/** `OTEL_METRIC_EXPORT_INTERVAL` and `_TIMEOUT` (ms); unset or invalid ones keep the specification's defaults (60 s, 30 s). */
function exportTiming(env: Env): { exportIntervalMillis: number; exportTimeoutMillis: number } {
  const read = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return env[name] !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
  };
  const exportIntervalMillis = read('OTEL_METRIC_EXPORT_INTERVAL', 60_000);
  return { exportIntervalMillis, exportTimeoutMillis: Math.min(read('OTEL_METRIC_EXPORT_TIMEOUT', 30_000), exportIntervalMillis) };
}

/**
 * Registers a meter provider globally when metrics are wanted: OTLP/HTTP export when the standard
 * OTEL_* variables name an endpoint for metrics (sent through `send`, the outbound client), and
 * the Prometheus scrape when `prometheus` is on. `readers` adds readers (tests: an in-memory
 * one). Returns null, registering nothing, when none is: every instrument stays the API's no-op.
 */
export function startMetrics(options: { env: Env; prometheus: boolean; serviceName: string; version: string; role: string; send?: ExportFetch; onExportFailure?: (message: string) => void; readers?: MetricReader[] }): Metrics | null {
  const readers: MetricReader[] = [...(options.readers ?? [])];
  const target = options.send ? otlpTarget(options.env, 'metrics') : null;
  if (target && options.send) {
    const exporter = new OutboundOtlpMetricExporter(target, options.send, oncePerMinute(options.onExportFailure));
    readers.push(new PeriodicExportingMetricReader({ exporter, ...exportTiming(options.env) }));
  }
  const scrapeReader = options.prometheus ? new ScrapeReader() : null;
  if (scrapeReader) readers.push(scrapeReader);
  if (readers.length === 0) return null;
  if (active) void active.metrics.shutdown();
  const provider = new MeterProvider({ resource: resourceFromAttributes(resourceAttributes(options.env, options)), readers });
  metrics.setGlobalMeterProvider(provider);
  const registered: Metrics = {
    scrape: scrapeReader ? async () => toPrometheusText((await scrapeReader.collect()).resourceMetrics) : null,
    flush: () => provider.forceFlush(),
    async shutdown() {
      if (active?.metrics !== registered) return;
      active = null;
      metrics.disable();
      await provider.shutdown();
    },
  };
  active = { provider, metrics: registered };
  return registered;
}
