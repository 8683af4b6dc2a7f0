import { randomBytes } from 'node:crypto';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import type { RunningService } from '../helpers/service-process.ts';

const t = useTestDatabase();
const scrapeToken = randomBytes(32).toString('base64url');
let service: RunningService;
let token: string;

beforeAll(async () => {
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', env: { SERVICE_METRICS_PROMETHEUS: 'on', SERVICE_METRICS_TOKEN: scrapeToken } }));
});

afterAll(async () => {
  await service?.stop();
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * The Prometheus text exposition format, strictly: every line a comment (`# HELP`, `# TYPE`) or a
 * sample `name{label="value",…} number`, every sample of a family whose TYPE was declared before it.
 */
function parseExposition(text: string): { types: Map<string, string>; samples: Sample[] } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$/.test(line)) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/g)) labels[pair[1]!] = pair[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    const name = sample[1]!;
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(family)) throw new Error(`sample before its TYPE: ${line}`);
    const value = Number(sample[3] === '+Inf' ? Infinity : sample[3]);
    if (Number.isNaN(value)) throw new Error(`not a number: ${line}`);
    samples.push({ name, labels, value });
  }
  return { types, samples };
}

const scrape = (authorization?: string) => fetch(`${service.url}/metrics`, { headers: authorization ? { authorization } : {} });

const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)).reduce((sum, sample) => sum + sample.value, 0);

describe('the Prometheus scrape endpoint of the running service (SERVICE_METRICS_PROMETHEUS=on)', () => {
  it('refuses a scraper without the token or with another one', async () => {
    const none = await scrape();
    expect(none.status).toBe(401);
    expect(await none.text()).not.toContain('http_server');
    expect((await scrape(`Bearer ${scrapeToken.slice(0, -1)}x`)).status).toBe(401);
    expect((await scrape(`Bearer ${token}`)).status).toBe(401);
  });

  it('counts the A2A requests by route and status, and the run they started and ended, in the exposition format', async () => {
    const sent = await fetch(`${service.url}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Count me.' }] }, configuration: { blocking: true } } }),
    });
    expect(sent.status).toBe(200);
    const task = ((await sent.json()) as { result: { status: { state: string } } }).result;
    expect(task.status.state).toBe('completed');

    const answer = await scrape(`Bearer ${scrapeToken}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const { types, samples } = parseExposition(await answer.text());
    expect(types.get('http_server_request_duration_seconds')).toBe('histogram');
    expect(valueOf(samples, 'http_server_request_duration_seconds_count', { http_request_method: 'POST', http_route: '/api/a2a', http_response_status_code: '200' })).toBeGreaterThanOrEqual(1);
    // The token request of the test's client, and the refused scrapes of the test before.
    expect(valueOf(samples, 'http_server_request_duration_seconds_count', { http_route: '/api/oauth/token', http_response_status_code: '200' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'http_server_request_duration_seconds_count', { http_route: '/metrics', http_response_status_code: '401' })).toBeGreaterThanOrEqual(3);
    expect(types.get('service_runs_started_total')).toBe('counter');
    expect(valueOf(samples, 'service_runs_started_total')).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'service_runs_ended_total', { service_run_state: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'gen_ai_client_operation_duration_seconds_count', { gen_ai_provider_name: 'scripted' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, 'service_database_up')).toBe(1);
    expect(valueOf(samples, 'process_memory_usage_bytes')).toBeGreaterThan(0);
    expect(types.get('nodejs_eventloop_utilization_ratio')).toBe('gauge');
    expect(samples.find((sample) => sample.name === 'target_info')?.labels).toMatchObject({ service_name: 'service' });
    // Nothing the caller sent is a label.
    expect(samples.some((sample) => Object.values(sample.labels).some((value) => value.includes('Count me')))).toBe(false);
  });
});
