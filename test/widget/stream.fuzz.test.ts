import type { Services } from '@service/core';
import { createRateLimiter } from '@service/core/http';
import { createMemoryLogger } from '@service/core/log';
import { fuzzParameters, useTestDatabase, within } from '@service/core/testing';
import { createWidgetStreamHandler, widgetEventSchemas, type WidgetEventName } from '@service/core/widget';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CmsADouble } from '../helpers/cms-a-double.ts';
import { startWidgetSite } from '../helpers/widget-site.ts';

const t = useTestDatabase();
let site: CmsADouble;
let services: Services;
let key: string;

beforeAll(async () => {
  ({ site, services, key } = await startWidgetSite(t.db));
});

afterAll(async () => {
  await site?.close();
});

const turn = fc.record({ role: fc.oneof({ arbitrary: fc.constantFrom('user', 'assistant'), weight: 5 }, { arbitrary: fc.string({ maxLength: 10 }), weight: 1 }), content: fc.oneof({ arbitrary: fc.constantFrom('Change the title to Hello', 'What is this page about?', 'Make it shorter'), weight: 3 }, { arbitrary: fc.string({ maxLength: 300 }), weight: 2 }, { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 1 }) });
const body = fc.oneof(
  { arbitrary: fc.record({ itemId: fc.oneof(fc.constantFrom('1', '42', 'missing'), fc.integer(), fc.string({ maxLength: 80 }), fc.constant(null)), messages: fc.array(turn, { maxLength: 5 }) }).map((b) => JSON.stringify(b)), weight: 5 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), weight: 1 },
  { arbitrary: fc.string({ maxLength: 300 }), weight: 1 },
);

describe('fuzzing the widget stream route (bodies)', () => {
  it('answers any body with a 4xx or a stream of valid frozen events that ends, never a 5xx or a hang', async () => {
    const handler = createWidgetStreamHandler({ streams: services.streams, widgetKeys: services.widgetKeys, edits: services.widgetEdits, audit: services.audit, llm: () => services.llm, rateLimiter: createRateLimiter({ limit: 1e6, windowMs: 60_000 }), logger: createMemoryLogger() });
    let streams = 0;
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await within(10_000, handler(new Request('http://127.0.0.1:3999/api/agents/cms-a-content-editor/stream?instanceId=drupal', { method: 'POST', headers: { 'content-type': 'application/json', origin: site.siteUrl, authorization: `Bearer ${key}` }, body: text }), 'cms-a-content-editor'));
        expect(response.status).toBeLessThan(500);
        const payload = await within(10_000, response.text());
        if (response.status !== 200) return;
        streams++;
        const frames = payload.split('\n\n').filter(Boolean);
        const names = frames.map((frame) => {
          const event = /^event: (\w+)$/m.exec(frame)?.[1] as WidgetEventName;
          expect(widgetEventSchemas[event]?.safeParse(JSON.parse(/^data: (.*)$/m.exec(frame)![1]!)).success, frame).toBe(true);
          return event;
        });
        // A stream always ends, with done or error.
        expect(['done', 'error']).toContain(names.at(-1));
      }),
      fuzzParameters(200),
    );
    expect(streams).toBeGreaterThan(10);
  }, 120_000);
});
