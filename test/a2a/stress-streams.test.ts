import { useTestDatabase } from '@service/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aHost } from '../helpers/a2a.ts';
import type { RunningService } from '../helpers/service-process.ts';

/**
 * Many streams at once against one service process, over real HTTP, round after round: every
 * stream must end with its final frame, with ids strictly increasing and no event twice (issue 24:
 * once, 37 of 100 streams ended without their `completed` frame under load).
 */
const t = useTestDatabase();
let service: RunningService;
let token: string;
const STREAMS = 100;
const ROUNDS = 3;

beforeAll(async () => {
  ({ service, token } = await startA2aHost(t.db, { mongodbUri: t.uri, scope: '@acme' }));
});
afterAll(async () => {
  await service?.stop();
});

/** One stream, read to its end: its frames' ids and results. */
async function stream(index: number, version: '0.3' | '1.0'): Promise<{ ids: number[]; results: Record<string, unknown>[] }> {
  const text = `Stream ${index}. Under load.`;
  const body = version === '1.0'
    ? { jsonrpc: '2.0', id: index, method: 'SendStreamingMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } } }
    : { jsonrpc: '2.0', id: index, method: 'message/stream', params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } } };
  const response = await fetch(`${service.url}/api/a2a`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'a2a-version': version }, body: JSON.stringify(body) });
  const frames = (await response.text()).split('\n\n').filter((frame) => /^data: /m.test(frame));
  return {
    ids: frames.map((frame) => Number(/^id: (\d+)$/m.exec(frame)?.[1] ?? Number.NaN)),
    results: frames.map((frame) => (JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as { result: Record<string, unknown> }).result),
  };
}

describe(`${STREAMS} concurrent streams, ${ROUNDS} rounds`, () => {
  it('ends every stream with its final frame', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const streams = await Promise.all(Array.from({ length: STREAMS }, (_, i) => stream(i, i % 2 ? '1.0' : '0.3')));
      const unfinished = streams.flatMap((s, i) => {
        const last = s.results.at(-1) as { kind?: string; final?: boolean; status?: { state: string }; statusUpdate?: { status: { state: string } } } | undefined;
        const final = i % 2 ? last?.statusUpdate?.status.state === 'TASK_STATE_COMPLETED' : last?.kind === 'status-update' && last.final === true && last.status?.state === 'completed';
        return final ? [] : [`stream ${i}: ${JSON.stringify(last)?.slice(0, 200)}`];
      });
      expect(unfinished, `round ${round}`).toEqual([]);
      for (const s of streams) {
        expect(s.ids.every((id, j) => Number.isInteger(id) && (j === 0 || id > s.ids[j - 1]!))).toBe(true);
      }
    }
  }, 240_000);
});
