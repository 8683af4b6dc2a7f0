import { randomBytes } from 'node:crypto';
import { findFreePort } from '@service/core/net';
import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import { startService, type RunningService } from '../helpers/service-process.ts';
import { readSseFrames } from '../helpers/sse.ts';

const t = useTestDatabase();
let service: RunningService;
let env: Record<string, string>;
let token: string;

beforeAll(async () => {
  // A fixed port and master key, so a restarted process is the same instance at the same URL.
  const fixed = { SERVICE_LLM_SCRIPTED_DELAY_MS: '1500', PORT: String(await findFreePort()), SERVICE_MASTER_KEY: randomBytes(32).toString('base64') };
  ({ service, token, env } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme', env: fixed }));
});

afterAll(async () => {
  await service?.stop();
});

interface Frame {
  id: number;
  result: { kind: string; status?: { state: string }; final?: boolean; statusUpdate?: { status: { state: string } }; task?: { id: string } };
}

/** Opens message/stream and reads frames until `stopAfter` of them arrived (then drops the connection) or the stream ends. */
async function stream(body: unknown, lastEventId: number | null, stopAfter = Infinity): Promise<Frame[]> {
  const controller = new AbortController();
  const response = await fetch(`${service.url}/api/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(lastEventId !== null ? { 'last-event-id': String(lastEventId) } : {}), ...((body as { method: string }).method.includes('/') ? {} : { 'a2a-version': '1.0' }) },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  try {
    // Frames without an id (none are sent on these streams) would not be resumable: left out.
    return (await readSseFrames(response, stopAfter)).flatMap((frame) => (frame.id === null ? [] : [{ id: frame.id, result: (frame.data as { result: Frame['result'] }).result }]));
  } finally {
    controller.abort();
  }
}

const request = () => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/stream',
  params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'Replay me. Exactly once.' }] } },
});

function expectExactlyOnce(first: Frame[], second: Frame[], full: Frame[]) {
  const seen = [...first, ...second];
  expect(seen.map((f) => f.id)).toEqual(full.map((f) => f.id));
  expect(seen.map((f) => f.result)).toEqual(full.map((f) => f.result));
  expect(full.map((f) => f.id)).toEqual(full.map((_, i) => i + 1));
  expect(full.at(-1)!.result).toMatchObject({ final: true, status: { state: 'completed' } });
}

describe('replay with Last-Event-ID', () => {
  it('after a dropped connection: every event exactly once, in order', async () => {
    const body = request();
    const first = await stream(body, null, 2);
    expect(first.map((f) => f.id)).toEqual([1, 2]);
    const second = await stream(body, first.at(-1)!.id);
    const full = await stream(body, 0);
    expectExactlyOnce(first, second, full);
  });

  it('after the host process is killed mid-run and restarted: the run continues, nothing lost or repeated', async () => {
    const body = request();
    const first = await stream(body, null, 2);
    await service.kill();
    service = await startService({ mongodbUri: t.uri, env });
    const second = await stream(body, first.at(-1)!.id);
    const full = await stream(body, 0);
    expectExactlyOnce(first, second, full);
    expect(second.some((f) => f.result.kind === 'status-update' && JSON.stringify(f.result).includes('Resumed after the host restarted'))).toBe(true);
  });

  it('over A2A v1.0, across a killed host: SendStreamingMessage again and SubscribeToTask both give the rest after Last-Event-ID, ids strictly increasing', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Replay me in one. Exactly once.' }] } } };
    const first = await stream(body, null, 2);
    expect(first.map((f) => f.id)).toEqual([1, 2]);
    const taskId = first[0]!.result.task!.id;
    await service.kill();
    service = await startService({ mongodbUri: t.uri, env });
    const subscribed = await stream({ jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: taskId } }, 2);
    const again = await stream(body, 2);
    const full = await stream(body, 0);
    expect(full.map((f) => f.id)).toEqual(full.map((_, i) => i + 1));
    expect(full.at(-1)!.result.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    for (const rest of [subscribed, again]) {
      // The snapshot frame of SubscribeToTask carries no id and is not counted here.
      expect(rest.map((f) => f.id)).toEqual(full.slice(2).map((f) => f.id));
      expect(rest.map((f) => f.result)).toEqual(full.slice(2).map((f) => f.result));
    }
  });
});
