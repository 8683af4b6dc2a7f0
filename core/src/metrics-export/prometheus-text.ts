import { DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';

/**
 * The Prometheus text exposition format (0.0.4) of collected metrics, named as the OpenTelemetry
 * specification maps them: characters outside `[a-zA-Z0-9_:]` become `_`, the unit becomes a
 * suffix (`s` → `_seconds`, `By` → `_bytes`, a `1` gauge → `_ratio`, `{…}` annotations are
 * dropped), monotonic sums end in `_total`, the resource is `target_info`.
 */
export function toPrometheusText(collected: ResourceMetrics): string {
  const lines: string[] = [];
  const resource = collected.resource.attributes;
  lines.push('# HELP target_info Target metadata', '# TYPE target_info gauge', `target_info${labels(resource)} 1`);
  for (const scope of collected.scopeMetrics) for (const metric of scope.metrics) lines.push(...metricLines(metric));
  return `${lines.join('\n')}\n`;
}

const UNITS: Record<string, string> = { s: 'seconds', ms: 'milliseconds', By: 'bytes' };

export function prometheusName(metric: Pick<MetricData, 'descriptor' | 'dataPointType'> & { isMonotonic?: boolean }): string {
  let name = sanitize(metric.descriptor.name);
  const unit = metric.descriptor.unit.replace(/\{[^}]*\}/g, '');
  const suffix = unit === '1' ? (metric.dataPointType === DataPointType.GAUGE ? 'ratio' : '') : (UNITS[unit] ?? sanitize(unit));
  if (suffix && !name.endsWith(`_${suffix}`)) name += `_${suffix}`;
  if (metric.dataPointType === DataPointType.SUM && metric.isMonotonic) name += '_total';
  return name;
}

function metricLines(metric: MetricData): string[] {
  if (metric.dataPoints.length === 0) return [];
  const name = prometheusName(metric);
  const help = `# HELP ${name} ${metric.descriptor.description.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`;
  switch (metric.dataPointType) {
    case DataPointType.SUM:
    case DataPointType.GAUGE: {
      const type = metric.dataPointType === DataPointType.SUM && metric.isMonotonic ? 'counter' : 'gauge';
      return [help, `# TYPE ${name} ${type}`, ...metric.dataPoints.map((point) => `${name}${labels(point.attributes)} ${number(point.value)}`)];
    }
    case DataPointType.HISTOGRAM: {
      const out = [help, `# TYPE ${name} histogram`];
      for (const point of metric.dataPoints) {
        const { boundaries, counts } = point.value.buckets;
        let cumulative = 0;
        boundaries.forEach((bound, i) => {
          cumulative += counts[i] ?? 0;
          out.push(`${name}_bucket${labels(point.attributes, { le: number(bound) })} ${cumulative}`);
        });
        out.push(`${name}_bucket${labels(point.attributes, { le: '+Inf' })} ${point.value.count}`);
        out.push(`${name}_sum${labels(point.attributes)} ${number(point.value.sum ?? 0)}`, `${name}_count${labels(point.attributes)} ${point.value.count}`);
      }
      return out;
    }
    default:
      // Exponential histograms are not made by this service.
      return [];
  }
}

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_:]/g, '_').replace(/_+/g, '_').replace(/^(\d)/, '_$1');

function labels(attributes: Record<string, unknown>, extra: Record<string, string> = {}): string {
  const pairs = Object.entries(attributes)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => `${sanitize(key)}="${escape(Array.isArray(value) ? JSON.stringify(value) : String(value))}"`);
  for (const [key, value] of Object.entries(extra)) pairs.push(`${key}="${value}"`);
  return pairs.length ? `{${pairs.join(',')}}` : '';
}

const escape = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function number(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}
