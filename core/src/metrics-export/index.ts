export { prometheusScrape, startMetrics, type Metrics } from './setup.ts';
export { toPrometheusText } from './prometheus-text.ts';
export { createMetricsScrapeHandler } from './scrape-handler.ts';
