/**
 * Widget stream route: time to the first `text` event (origin and key checks, body, an instant
 * local LLM) vs a bare node:http SSE echo server in the same script, interleaved (goal <= 1.5x);
 * the bundle's gzipped size (goal <= 15 KB); memory per open stream with 500 held open.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createServices } from '@service/core';
import { testConfig } from '@service/core/testing/services';
import { createRateLimiter, sendWebResponse, toWebRequest } from '@service/core/http';
import { createLogger } from '@service/core/log';
import type { LlmProvider } from '@service/core/llm';
import { createWidgetStreamHandler, WIDGET_BUNDLE_PATH } from '@service/core/widget';
import { benchDatabase } from './bench-environment.ts';
import { percentile, report, sideBySide } from './harness.ts';
import { recordFigure, verdict } from './results.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 60);
const OPEN_STREAMS = Number(process.env.BENCH_OPEN_STREAMS ?? 500);
let hold: Promise<void> | null = null;
let release = () => {};
/** An instant local LLM: answers at once, or (for the memory run) waits until released. */
const instant: LlmProvider = {
  name: 'instant',
  model: 'instant',
  async *stream() {
    yield { type: 'text-delta', text: 'Hello.' };
    if (hold) await hold;
  },
  complete: async () => ({ text: 'Hello.', toolCalls: [], provider: 'instant', model: 'instant' }),
};

const listen = async (handler: http.RequestListener) => {
  const server = http.createServer(handler);
  server.maxConnections = OPEN_STREAMS * 2;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

const database = await benchDatabase('bench_widget');
const services = createServices({ config: testConfig(), logger: createLogger({ level: 'warn' }), database: database.db, llm: instant });
const admin = { type: 'ui', id: 'bench', email: 'b@bench.test', role: 'admin' } as const;
const siteOrigin = 'http://site.bench.test';
await services.connectorInstances.put(admin, { connector: 'cms_b', id: 'site', name: 'Bench', siteUrl: siteOrigin, username: 'u', credential: 'p' });
const { key } = await services.widgetKeys.rotate(admin, 'cms_b', 'site');
// The route's own handler, with the per-key rate limit lifted for the measurement.
const route = createWidgetStreamHandler({ streams: services.streams, widgetKeys: services.widgetKeys, edits: services.widgetEdits, audit: services.audit, llm: () => instant, rateLimiter: createRateLimiter({ limit: 1e9, windowMs: 60_000 }), logger: createLogger({ level: 'error' }) });
const ours = await listen((req, res) => {
  void route(toWebRequest(req, 'http://127.0.0.1', res), 'cms-b-content-editor').then((response) => sendWebResponse(res, response));
});
const bare = await listen((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: text\ndata: ${JSON.stringify({ content: 'Hello.' })}\n\n`);
    res.end(`event: done\ndata: {}\n\n`);
  });
});

const body = JSON.stringify({ itemId: 1, messages: [{ role: 'user', content: 'Hi there.' }] });
async function firstText(url: string): Promise<{ response: Response; reader: ReadableStreamDefaultReader<Uint8Array> }> {
  const response = await fetch(url, { method: 'POST', headers: { origin: siteOrigin, authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('event: text')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`no text event from ${url}: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return { response, reader };
}

try {
  const result = await sideBySide(
    'time to the first `text` event',
    { iterations: ITERATIONS, warmup: 5 },
    { name: 'bare node:http SSE echo', run: async () => void (await firstText(`${bare.url}/`)).reader.cancel() },
    { name: 'the widget stream route (origin, key, body, LLM)', run: async () => void (await firstText(`${ours.url}/api/agents/cms-b-content-editor/stream?instanceId=site`)).reader.cancel() },
  );
  console.log(`  database: ${database.kind}`);
  report(result, 1.5);

  const gz = gzipSync(readFileSync(WIDGET_BUNDLE_PATH)).length;
  const bundleFigure = recordFigure({ name: 'widget bundle gzipped', value: gz, unit: 'bytes', goal: { op: '<=', target: 15 * 1024 } });
  console.log(`\nbundle: ${gz} bytes gzipped (goal <= ${15 * 1024}: ${verdict(bundleFigure)})`);

  global.gc?.();
  const before = process.memoryUsage();
  hold = new Promise((resolve) => (release = resolve));
  const open = [];
  for (let i = 0; i < OPEN_STREAMS; i += 50) {
    open.push(...(await Promise.all(Array.from({ length: Math.min(50, OPEN_STREAMS - i) }, () => firstText(`${ours.url}/api/agents/cms-b-content-editor/stream?instanceId=site`)))));
  }
  global.gc?.();
  const after = process.memoryUsage();
  const perStream = (a: number, b: number) => (b - a) / OPEN_STREAMS / 1024;
  const heapPerStream = perStream(before.heapUsed, after.heapUsed);
  const rssPerStream = perStream(before.rss, after.rss);
  recordFigure({ name: `heap per open stream (${open.length} open)`, value: heapPerStream, unit: 'KiB' });
  recordFigure({ name: `RSS per open stream (${open.length} open)`, value: rssPerStream, unit: 'KiB' });
  console.log(`memory with ${open.length} open streams (client and server in this process): heap +${heapPerStream.toFixed(1)} KiB/stream, rss +${rssPerStream.toFixed(1)} KiB/stream`);
  release();
  await Promise.all(open.map(({ reader }) => reader.cancel().catch(() => undefined)));
  void percentile;
} finally {
  ours.server.closeAllConnections();
  bare.server.closeAllConnections();
  ours.server.close();
  bare.server.close();
  await database.stop();
}
