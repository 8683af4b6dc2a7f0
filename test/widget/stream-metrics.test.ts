import type { Services } from '@service/core';
import { recordMetrics, useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CmsADouble } from '../helpers/cms-a-double.ts';
import { startWidgetSite } from '../helpers/widget-site.ts';

const t = useTestDatabase();
let site: CmsADouble;
let services: Services;
let key: string;
const slug = 'cms-a-content-editor';

beforeAll(async () => {
  ({ site, services, key } = await startWidgetSite(t.db));
});

afterAll(async () => {
  await site?.close();
});

describe('widget event streams in the metrics', () => {
  it('count as open while the stream runs and as closed once it ended', async () => {
    const metrics = recordMetrics();
    try {
      const response = await services.handlers.widgetStream(
        new Request(`http://127.0.0.1:3999/api/agents/${slug}/stream?instanceId=drupal`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: site.siteUrl, authorization: `Bearer ${key}` },
          body: JSON.stringify({ itemId: '42', messages: [{ role: 'user', content: 'Make the title shorter.' }] }),
        }),
        slug,
      );
      const body = response.body!.getReader();
      await body.read();
      expect(await metrics.points('service.sse.streams.open')).toEqual([{ attributes: { 'service.stream.kind': 'widget' }, value: 1 }]);
      while (!(await body.read()).done);
      expect(await metrics.points('service.sse.streams.open')).toEqual([{ attributes: { 'service.stream.kind': 'widget' }, value: 0 }]);
    } finally {
      await metrics.stop();
    }
  });
});
