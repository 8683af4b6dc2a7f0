import { sseResponse } from '@service/core/a2a';
import type { Services } from '@service/core';
import { requireAdmin } from '~/auth/session.server.ts';

/** The event name of the last frame: the run is settled (finished or waiting for input) and the stream ends. */
export const SETTLED_EVENT = 'settled';

/**
 * The run view's live feed: the run's events after `Last-Event-ID` (or `?after=`) as SSE, each
 * `id: <seq>` with `{ seq, event }`, then a `settled` frame once nothing more will come until
 * someone acts. Reads only what is new (the log's `follow`), so a long run costs its new events,
 * not its history on every tick; the browser's EventSource resumes from the last id it saw.
 */
export async function runEventStream(request: Request, services: Services, runId: string): Promise<Response> {
  await requireAdmin(request, services);
  const run = await services.runs.get(runId);
  if (!run) return new Response('Run not found', { status: 404 });
  const after = Number(request.headers.get('last-event-id') ?? new URL(request.url).searchParams.get('after') ?? 0);
  const afterSeq = Number.isSafeInteger(after) && after > 0 ? after : 0;
  return sseResponse(async function* (signal) {
    for await (const stored of services.eventLog.follow(run.id, afterSeq, signal)) {
      yield `id: ${stored.seq}\ndata: ${JSON.stringify({ seq: stored.seq, event: stored.event })}\n\n`;
    }
    const settled = await services.runs.get(run.id);
    yield `event: ${SETTLED_EVENT}\ndata: ${JSON.stringify({ state: settled?.state ?? null })}\n\n`;
  }, request.signal);
}
