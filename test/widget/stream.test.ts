import type { Services } from '@service/core';
import { createRateLimiter } from '@service/core/http';
import { createMemoryLogger } from '@service/core/log';
import type { LlmProvider, LlmTurn } from '@service/core/llm';
import { installExampleAgents, installFlowAgent, recordMetrics, useTestDatabase } from '@service/core/testing';
import { createWidgetStreamHandler, widgetEventSchemas, type WidgetEventName } from '@service/core/widget';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CmsADouble } from '../helpers/cms-a-double.ts';
import { startWidgetSite, WIDGET_TEST_ADMIN as admin } from '../helpers/widget-site.ts';

const t = useTestDatabase();
let site: CmsADouble;
let services: Services;
let key: string;
const slug = 'cms-a-content-editor';

beforeAll(async () => {
  ({ site, services, key } = await startWidgetSite(t.db));
  await services.widgetKeys.configure(admin, 'cms_a', 'drupal', { historyTurns: 3 });
});

afterAll(async () => {
  await site?.close();
});

function request(body: unknown, options: { origin?: string | null; key?: string | null; instanceId?: string; method?: string } = {}) {
  const origin = options.origin === undefined ? site.siteUrl : options.origin;
  const bearer = options.key === undefined ? key : options.key;
  return new Request(`http://127.0.0.1:3999/api/agents/${slug}/stream?instanceId=${options.instanceId ?? 'drupal'}`, {
    method: options.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    ...(options.method === 'OPTIONS' ? {} : { body: JSON.stringify(body) }),
  });
}

async function events(response: Response): Promise<{ event: WidgetEventName; data: unknown }[]> {
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames = (await response.text()).split('\n\n').filter(Boolean);
  return frames.map((frame) => {
    const event = /^event: (\w+)$/m.exec(frame)![1] as WidgetEventName;
    const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as unknown;
    // Every event must validate against the frozen schemas.
    expect(widgetEventSchemas[event].safeParse(data).success, frame).toBe(true);
    return { event, data };
  });
}

const ask = (text: string, itemId: string | number = '42') => ({ itemId, messages: [{ role: 'user', content: text }] });

describe('the widget status route (Test connection, the input\'s placeholder)', () => {
  const status = (options: { origin?: string | null; key?: string | null; instanceId?: string; method?: string } = {}) => {
    const origin = options.origin === undefined ? site.siteUrl : options.origin;
    const bearer = options.key === undefined ? key : options.key;
    return services.handlers.widgetStatus(
      new Request(`http://127.0.0.1:3999/api/agents/${slug}/status?instanceId=${options.instanceId ?? 'drupal'}`, {
        method: options.method ?? 'GET',
        headers: { ...(origin ? { origin } : {}), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      }),
      slug,
    );
  };

  it('passes the stream route\'s guard in its order, then names the LLM and the offline phrases on the CMS\'s fields', async () => {
    expect((await status({ origin: 'https://elsewhere.example', key: null })).status).toBe(403);
    expect((await status({ instanceId: 'nope' })).status).toBe(403);
    expect((await status({ key: 'wk_wrong' })).status).toBe(401);
    expect((await status({ method: 'POST' })).status).toBe(405);
    const preflight = await status({ method: 'OPTIONS', key: null });
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST');
    const ok = await status();
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(site.siteUrl);
    expect(await ok.json()).toEqual({
      agent: slug,
      instanceId: 'drupal',
      llm: 'scripted',
      placeholder: 'Offline assistant. Try: set title to "…"; replace "old" with "new" in body; append "…" to summary',
    });
  });
});

describe('the widget stream route', () => {
  it('checks the origin before the key: a wrong origin is 403 without the key being looked at', async () => {
    let verified = 0;
    const handler = createWidgetStreamHandler({
      streams: services.streams,
      widgetKeys: { ...services.widgetKeys, verify: async (...args) => (verified++, services.widgetKeys.verify(...args)) },
      edits: services.widgetEdits,
      audit: services.audit,
      llm: () => services.llm,
      rateLimiter: createRateLimiter({ limit: 100, windowMs: 60_000 }),
      logger: createMemoryLogger(),
    });
    for (const origin of ['https://evil.example', null]) {
      const response = await handler(request(ask('hi'), { origin }), slug);
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
    expect((await handler(request(ask('hi'), { origin: 'https://evil.example', key: 'swk_wrong' }), slug)).status).toBe(403);
    expect(verified).toBe(0);
    const wrongKey = await handler(request(ask('hi'), { key: 'swk_wrong' }), slug);
    expect(wrongKey.status).toBe(401);
    expect(verified).toBe(1);
    expect((await handler(request(ask('hi'), { key: null }), slug)).status).toBe(401);
  });

  it('answers 404 for an unknown slug, preflight only for allowlisted origins, 400 for bad bodies', async () => {
    expect((await services.handlers.widgetStream(request(ask('hi')), 'nobody-content-editor')).status).toBe(404);
    const preflight = await services.handlers.widgetStream(request(null, { method: 'OPTIONS' }), slug);
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(site.siteUrl);
    expect((await services.handlers.widgetStream(request(null, { method: 'OPTIONS', origin: 'https://evil.example' }), slug)).status).toBe(403);
    for (const body of [{}, { itemId: '42', messages: [] }, { itemId: '42', messages: Array.from({ length: 101 }, () => ({ role: 'user', content: 'x' })) }]) {
      expect((await services.handlers.widgetStream(request(body), slug)).status).toBe(400);
    }
  });

  it('streams text, the changes read back from the draft, then done', async () => {
    const got = await events(await services.handlers.widgetStream(request(ask('set title to "Widget title"')), slug));
    expect(got.map((e) => e.event)).toEqual(['text', 'changes', 'done']);
    expect(got[1]!.data).toEqual({ fields: [{ field: 'title', before: 'Published title', after: 'Widget title' }], nodeId: '42', postId: '42' });
    expect(got[2]!.data).toEqual({});
  });

  it('ends with done {fallback: true} when nothing changes, and with error when the agent fails', async () => {
    const nothing = await events(await services.handlers.widgetStream(request(ask('What is this page about?')), slug));
    expect(nothing.map((e) => e.event)).toEqual(['text', 'done']);
    expect(nothing.at(-1)!.data).toEqual({ fallback: true });

    const failing = await events(await services.handlers.widgetStream(request(ask('set title to "x"', 'locked')), slug));
    expect(failing.at(-1)).toEqual({ event: 'error', data: { message: expect.stringContaining('write draft') } });
  });

  it('passes only the most recent turns to the LLM', async () => {
    const seen: LlmTurn[] = [];
    const spy: LlmProvider = {
      name: 'spy',
      model: 'spy',
      async *stream(turn) {
        seen.push(turn);
        yield { type: 'text-delta', text: 'ok' };
      },
      complete: () => Promise.reject(new Error('unused')),
    };
    const handler = createWidgetStreamHandler({ streams: services.streams, widgetKeys: services.widgetKeys, edits: services.widgetEdits, audit: services.audit, llm: () => spy, rateLimiter: createRateLimiter({ limit: 100, windowMs: 60_000 }), logger: createMemoryLogger() });
    const messages = Array.from({ length: 8 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}` }));
    await events(await handler(request({ itemId: '42', messages }), slug));
    expect(seen[0]!.messages.flatMap((m) => (m.role === 'user' || m.role === 'assistant' ? [m.content] : []))).toEqual(['turn 5', 'turn 6', 'turn 7']);
  });

  it('keeps the widget key and the CMS credential independent', async () => {
    const before = (await t.db.models.ConnectorInstance.findById('drupal').lean())!;
    const { key: rotated } = await services.widgetKeys.rotate(admin, 'cms_a', 'drupal');
    const afterKey = (await t.db.models.ConnectorInstance.findById('drupal').lean())!;
    expect(afterKey.credentialSealed).toBe(before.credentialSealed);
    expect(JSON.stringify(afterKey)).not.toContain(rotated);
    expect(await services.widgetKeys.verify('cms_a', 'drupal', key)).toBe(false);
    await services.connectorInstances.put(admin, { connector: 'cms_a', id: 'drupal', name: 'Drupal', siteUrl: site.siteUrl, credential: site.key });
    expect(await services.widgetKeys.verify('cms_a', 'drupal', rotated)).toBe(true);
    key = rotated;
  });
  it('stops the LLM turn when the widget goes away mid-answer, and logs no failure', async () => {
    let sawAbort: () => void = () => {};
    const aborted = new Promise<void>((resolve) => (sawAbort = resolve));
    const endless: LlmProvider = {
      name: 'endless',
      model: 'endless',
      async *stream(_turn: LlmTurn, signal?: AbortSignal) {
        signal?.addEventListener('abort', () => sawAbort(), { once: true });
        for (let i = 0; !signal?.aborted; i++) {
          yield { type: 'text-delta', text: `word ${i} ` };
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      },
      complete: () => Promise.reject(new Error('not used')),
    };
    const logger = createMemoryLogger();
    const handler = createWidgetStreamHandler({ streams: services.streams, widgetKeys: services.widgetKeys, edits: services.widgetEdits, audit: services.audit, llm: () => endless, rateLimiter: createRateLimiter({ limit: 100, windowMs: 60_000 }), logger });
    const response = await handler(request(ask('Talk forever.')), slug);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('event: text');
    await reader.cancel();
    // The provider sees its signal aborted; a turn that went on would keep this waiting until the test times out.
    await expect(aborted).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(logger.records.filter((entry) => entry.level === 'warn' || entry.level === 'error')).toEqual([]);
  });
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

/** The stream route with the services' LLM and skills, each turn it asks the LLM kept in `turns`. */
function watchedTurns() {
  const turns: LlmTurn[] = [];
  const llm = services.llm;
  const spy: LlmProvider = { ...llm, stream: (turn, signal) => (turns.push(turn), llm.stream(turn, signal)) };
  const handler = createWidgetStreamHandler({ streams: services.streams, widgetKeys: services.widgetKeys, edits: services.widgetEdits, audit: services.audit, llm: () => spy, rateLimiter: createRateLimiter({ limit: 100, windowMs: 60_000 }), logger: createMemoryLogger(), skills: services.widgetSkills });
  return { turns, handler };
}

describe("the widget's turn with the assistant agent's skills", () => {
  beforeAll(async () => {
    await installExampleAgents(t.db, '@acme', ['summarizer']);
    // The assistant: its skills are the summarizer (no approval needed) and an agent nobody offers (left out).
    await installFlowAgent(t.db, '@acme', '@acme/assistant', [{ kind: 'llm', id: 'answer', prompt: '{{input}}' }], [], { skills: ['@acme/summarizer', '@nowhere/ghost'] });
  });

  it("offers the skills beside the content editor, gives the model a skill's answer, and streams what it then says", async () => {
    await services.widgetKeys.configure(admin, 'cms_a', 'drupal', { assistantAgent: '@acme/assistant' });
    try {
      const { turns, handler } = watchedTurns();
      const frames = await events(await handler(request(ask('use acme__summarizer with {"input":"Skills help. They do."}')), slug));
      expect(turns[0]!.tools!.map((tool) => tool.name)).toEqual(['edit_content', 'acme__summarizer']);
      expect(turns).toHaveLength(2);
      expect(turns[1]!.messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'scripted-1', toolName: 'acme__summarizer', result: { type: 'json', value: '[scripted] Summarize: Skills help. They do.' } });
      expect(frames.map((frame) => frame.event)).toEqual(['text', 'done']);
      expect(frames[0]!.data).toEqual({ content: '[scripted] acme__summarizer answered: [scripted] Summarize: Skills help. They do.' });
      expect(frames[1]!.data).toEqual({ fallback: true });
    } finally {
      await services.widgetKeys.configure(admin, 'cms_a', 'drupal', { assistantAgent: null });
    }
  });

  it('offers no skill on the site-level chat, where nothing can be edited', async () => {
    await services.widgetKeys.configure(admin, 'cms_a', 'drupal', { assistantAgent: '@acme/assistant' });
    try {
      const { turns, handler } = watchedTurns();
      await events(await handler(request({ messages: [{ role: 'user', content: 'use acme__summarizer with {"input":"x"}' }] }), slug));
      expect(turns.map((turn) => turn.tools ?? [])).toEqual([[]]);
    } finally {
      await services.widgetKeys.configure(admin, 'cms_a', 'drupal', { assistantAgent: null });
    }
  });
});
