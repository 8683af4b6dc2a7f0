import type { AppLoadContext } from '@remix-run/node';
import type { UiActor } from '@service/core/auth';
import { installExampleAgents, testServices, useTestDatabase } from '@service/core/testing';
import { textMessage } from '@service/core/use-cases';
import { beforeAll, describe, expect, it } from 'vitest';
import { action as signInAction } from '~/routes/sign-in.tsx';
import { runEventStream } from './run-event-stream.server.ts';

const t = useTestDatabase();
let context: AppLoadContext;
let cookie: string;
let admin: UiActor;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  context = { services: testServices(t.db) };
  admin = await context.services.users.create({ email: 'ops@example.com', password: 'correct horse battery', role: 'admin' });
  const response = (await signInAction({
    request: new Request('http://127.0.0.1:3999/sign-in', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email: 'ops@example.com', password: 'correct horse battery' }) }),
    context,
    params: {},
  })) as Response;
  cookie = response.headers.get('set-cookie')!.split(';')[0]!;
});

/** The frames of a stream that ends by itself (the run is settled): `event` and parsed `data` of each. */
async function frames(response: Response) {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message', data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as { seq?: number; event?: { type: string }; state?: string } }));
}

describe('the run view’s live feed', () => {
  it('sends the events people see, then the state the run settled in; never the executor’s step outputs', async () => {
    const { run, execution } = await context.services.useCases.runs.start(admin, { agent: '@acme/editorial-review', message: textMessage('A draft. Stream me.') });
    await execution;
    const stored = await context.services.eventLog.readAfter(run.id, 0);
    expect(stored.map(({ event }) => event.type)).toContain('step');

    const response = await runEventStream(new Request(`http://127.0.0.1:3999/administration/runs/${run.id}/events?after=0`, { headers: { cookie } }), context.services, run.id);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const sent = await frames(response);
    expect(sent.at(-1)).toEqual({ event: 'settled', data: { state: 'input-required' } });
    const events = sent.slice(0, -1);
    const shown = stored.filter(({ event }) => event.type !== 'step' && event.type !== 'progress');
    expect(events.map(({ data }) => [data.seq, data.event!.type])).toEqual(shown.map(({ seq, event }) => [seq, event.type]));
    expect(events.at(-1)!.data.event).toMatchObject({ type: 'status', interrupt: { screenId: 'approve-summary' } });
  });

  it('answers 404 for a run that is not there', async () => {
    const response = await runEventStream(new Request('http://127.0.0.1:3999/administration/runs/nope/events', { headers: { cookie } }), context.services, 'nope');
    expect(response.status).toBe(404);
  });
});
