import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jaegerSkipReason } from '../helpers/jaeger-binary.ts';
import { startJaeger, type Jaeger } from '../helpers/jaeger.ts';

/**
 * The trace receiver the end-to-end tests start: a real Jaeger v2 takes an OTLP/HTTP export and
 * answers the span through its query API. Jaeger is built from the Go module proxy on first use
 * (`pnpm jaeger:install` builds it ahead); without Go these tests are skipped, saying so. The
 * workspace has no OpenTelemetry SDK, so the export is the OTLP JSON an exporter would post.
 */
const skip = await jaegerSkipReason();
let jaeger: Jaeger;

beforeAll(async () => {
  if (!skip) jaeger = await startJaeger();
});
afterAll(async () => {
  await jaeger?.stop();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString();

describe.skipIf(skip)(`a real Jaeger as the OTLP/HTTP trace receiver${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('stores an exported parent and child span and answers them with their attributes', async () => {
    const traceId = hex(16);
    const rootId = hex(8);
    const childId = hex(8);
    const now = Date.now();
    const span = (spanId: string, name: string, parentSpanId: string, attributes: unknown[]) => ({
      traceId, spanId, parentSpanId, name, kind: 1, startTimeUnixNano: nanos(now), endTimeUnixNano: nanos(now + 5), attributes,
    });
    const exported = await fetch(`${jaeger.otlpHttpUrl}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceSpans: [{
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'jaeger-receiver-test' } }] },
          scopeSpans: [{
            scope: { name: 'jaeger-receiver-test' },
            spans: [
              span(rootId, 'agent.run', '', [
                { key: 'run.id', value: { stringValue: 'run-1' } },
                { key: 'run.steps', value: { intValue: '3' } },
                { key: 'run.streamed', value: { boolValue: true } },
              ]),
              span(childId, 'llm.call', rootId, [{ key: 'llm.model', value: { stringValue: 'scripted' } }]),
            ],
          }],
        }],
      }),
    });
    expect(exported.status, await exported.text()).toBe(200);

    const [trace, ...others] = await jaeger.traces('jaeger-receiver-test');
    expect(others).toEqual([]);
    expect(trace!.traceId).toBe(traceId);
    const byName = Object.fromEntries(trace!.spans.map((s) => [s.name, s]));
    expect(byName['agent.run']).toEqual({
      traceId, spanId: rootId, parentSpanId: undefined, name: 'agent.run', serviceName: 'jaeger-receiver-test',
      attributes: { 'run.id': 'run-1', 'run.steps': 3, 'run.streamed': true },
    });
    expect(byName['llm.call']).toMatchObject({ spanId: childId, parentSpanId: rootId, serviceName: 'jaeger-receiver-test', attributes: { 'llm.model': 'scripted' } });
    // Without a service, every service's traces.
    expect((await jaeger.traces()).map((t) => t.traceId)).toEqual([traceId]);
  });
});
