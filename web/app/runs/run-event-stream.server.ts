import { sseResponse } from '@service/core/a2a';
import type { Services } from '@service/core';
import { isDomainError } from '@service/core/errors';
import { requireAdmin } from '~/auth/session.server.ts';

/** The event name of the last frame: the run is settled (finished or waiting for input) and the stream ends. */
export const SETTLED_EVENT = 'settled';

/**
 * The run view's live feed (core's `runs.follow`) as SSE: each event after `Last-Event-ID` (or
 * `?after=`) as `id: <seq>` with `{ seq, event }`, then a `settled` frame once nothing more will
 * come until someone acts. The browser's EventSource resumes from the last id it saw.
 */
export async function runEventStream(request: Request, services: Services, runId: string): Promise<Response> {
  const admin = await requireAdmin(request, services);
  let feed;
  try {
    feed = await services.useCases.runs.follow(admin, runId);
  } catch (error) {
    if (isDomainError(error) && error.code === 'NOT_FOUND') return new Response('Run not found', { status: 404 });
    throw error;
  }
  const after = Number(request.headers.get('last-event-id') ?? new URL(request.url).searchParams.get('after') ?? 0);
  const afterSeq = Number.isSafeInteger(after) && after > 0 ? after : 0;
  return sseResponse(async function* (signal) {
    for await (const item of feed.from(afterSeq, signal)) {
      yield 'settled' in item ? `event: ${SETTLED_EVENT}\ndata: ${JSON.stringify({ state: item.settled })}\n\n` : `id: ${item.seq}\ndata: ${JSON.stringify(item)}\n\n`;
    }
  }, request.signal);
}
