import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { inSpan } from '../telemetry/index.ts';
import { installExampleAgents, recordSpans, testServices, useTestDatabase } from '../testing/index.ts';
import { textMessage } from '../use-cases/index.ts';

const t = useTestDatabase();
const admin = { type: 'ui', id: 'admin-link', email: 'admin@acme.test', role: 'admin' } as const;
let services: Services;
let spans: ReturnType<typeof recordSpans>;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
  spans = recordSpans();
});
afterAll(() => spans?.stop());

describe('a run resumed by an answer made in another trace', () => {
  it('continues the run’s own trace and links the answer’s span, so either leads to the other', async () => {
    const { runId, startTrace } = await inSpan('start request', {}, async (span) => {
      const { run, execution } = await services.useCases.runs.start(admin, { agent: '@acme/editorial-review', message: textMessage('A draft. It needs a teaser.') });
      await execution;
      return { runId: run.id, startTrace: span.spanContext().traceId };
    });
    const answerSpan = await inSpan('answer request', {}, async (span) => {
      const { answerSeq } = await services.useCases.runs.answer(admin, runId, { screenId: 'approve-summary', values: { approved: true } });
      for await (const stored of services.eventLog.follow(runId, answerSeq)) void stored;
      return span.spanContext();
    });
    expect(answerSpan.traceId).not.toBe(startTrace);
    const runs = (await spans.finished()).filter((span) => span.name === 'invoke_agent @acme/editorial-review');
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(run.spanContext().traceId).toBe(startTrace);
    const [first, resumed] = runs.sort((a, b) => Number(a.startTime[0] - b.startTime[0]) || a.startTime[1] - b.startTime[1]);
    // The first execution is the start request's child: no link to its own parent.
    expect(first!.links).toEqual([]);
    expect(resumed!.links.map((link) => link.context.spanId)).toEqual([answerSpan.spanId]);
  });
});
