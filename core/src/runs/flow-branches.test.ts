import { beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../index.ts';
import { installExampleAgents, testServices, useTestDatabase } from '../testing/index.ts';
import { textMessage } from '../use-cases/index.ts';
import type { RunEvent } from './model.ts';

const t = useTestDatabase();
let services: Services;
const admin = { type: 'ui', id: 'admin-branches', email: 'admin@acme.test', role: 'admin' } as const;

beforeAll(async () => {
  await installExampleAgents(t.db, '@acme');
  services = testServices(t.db);
});

/** The editorial review (scripted LLM) answered with `values`, run to its end: the run, its answer and its step records. */
async function reviewAnswered(values: { approved: boolean; notes?: string }) {
  const { run, execution } = await services.useCases.runs.start(admin, { agent: '@acme/editorial-review', message: textMessage('A draft. It needs a teaser.') });
  await execution;
  const { answerSeq } = await services.useCases.runs.answer(admin, run.id, { screenId: 'approve-summary', values });
  for await (const stored of services.eventLog.follow(run.id, answerSeq)) void stored;
  const events = (await services.eventLog.readAfter(run.id, 0)).map((stored) => stored.event);
  const steps = events.filter((event): event is Extract<RunEvent, { type: 'step' }> => event.type === 'step');
  const answer = events.flatMap((event) => (event.type === 'artifact' ? event.artifact.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])) : [])).join('');
  return { run: (await services.runs.get(run.id))!, answer, steps, events };
}

describe('a flow branching on a pause’s answer (`when` and `reply` steps)', () => {
  it('replies "Not approved" with the notes when the editor does not approve, and runs no teaser', async () => {
    const { run, answer, steps, events } = await reviewAnswered({ approved: false, notes: 'Too long.' });
    expect(run.state).toBe('completed');
    expect(answer).toBe('Not approved: Too long.');
    expect(steps.map((step) => [step.index, step.stepId, step.kind, step.skipped ?? false])).toEqual([
      [0, 'summary', 'call', false],
      [2, 'not-approved', 'reply', false],
    ]);
    // The reply's record is stored with the answer and the ending, after them.
    expect(events.at(-1)).toMatchObject({ type: 'step', stepId: 'not-approved', output: 'Not approved: Too long.' });
    expect(run.progress.stepIndex).toBe(3);
  });

  it('skips the reply when the editor approves (recorded with a null output) and answers with the teaser', async () => {
    const { run, answer, steps } = await reviewAnswered({ approved: true, notes: 'Ship it.' });
    expect(run.state).toBe('completed');
    expect(answer).not.toContain('Not approved');
    expect(answer.length).toBeGreaterThan(0);
    expect(steps.map((step) => [step.index, step.stepId, step.kind, step.skipped ?? false])).toEqual([
      [0, 'summary', 'call', false],
      [2, 'not-approved', 'reply', true],
      [3, 'teaser', 'llm', false],
    ]);
    expect(steps[1]!.output).toBeNull();
    // A run continued from its log moves past the skipped step, which leaves no output behind.
    expect(run.progress.stepIndex).toBe(4);
    expect(Object.keys(run.progress.outputs).sort()).toEqual(['approval', 'summary', 'teaser']);
  });
});
